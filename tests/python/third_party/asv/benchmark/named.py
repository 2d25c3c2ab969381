# Licensed under a 3-clause BSD style license - see LICENSE.rst


class Suite:
    def named_method(self):
        return 0

    named_method.benchmark_name = 'custom.track_method'
    # pitot: skipped (asv keys it 'custom.track_method', pitot 'named.custom.track_method'; see README.md).
    named_method.skip_benchmark = True


def named_function():
    pass


named_function.benchmark_name = 'custom.time_function'
named_function.pretty_name = 'My Custom Function'
# pitot: skipped (asv keys it 'custom.time_function', pitot 'named.custom.time_function'; see README.md).
named_function.skip_benchmark = True


def track_custom_pretty_name():
    return 42


track_custom_pretty_name.pretty_name = 'this.is/the.answer'


class BaseSuite:
    def some_func(self):
        return 0


class OtherSuite:
    track_some_func = BaseSuite.some_func
