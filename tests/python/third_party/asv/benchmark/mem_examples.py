# Licensed under a 3-clause BSD style license - see LICENSE.rst


def mem_list():
    return [0] * 255
