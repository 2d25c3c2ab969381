// pitot ab's sequential plan: when it looks at the points, which verdicts are kept, and what
// an undecided point could have detected. Checked by simulation (tests/compare/test_sequential.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/compare/comparison.hpp"
#include "driver/compare/compare.hpp"

namespace pitot::driver::ab {

// The processes a side at which the points are looked at: `first`, then about half as many again
// each time, in even steps (4, 6, 10, 12), ending at `max`. Even steps keep an even `first` even:
// with an even number of ABBA rounds each side has gone first equally often, so a drift within a
// round (a card warming under its power cap) weighs on both alike.
std::vector<int> look_schedule(int first, int max);
// The share of both error rates each of `looks` looks spends (MethodOptions::look_share): they sum
// to 1 (Bonferroni), so the rates hold over the sequence whatever the dependence between looks.
// The first look gets kFirstLookShare and the others split the rest evenly: most points are
// decided at the first look, where few processes make the t quantile steep in its level (at 2+2
// processes a 95% interval is 0.62 of a 98% one), while later looks have the degrees of freedom
// to spare (at 4+4 a share of 1/8 widens it 1.12 times against 1/5). test_sequential.cpp,
// FrontLoadedShares.
std::vector<double> look_shares(std::size_t looks);
constexpr double kFirstLookShare = 0.5;
// The first look's processes a side by default (--processes): 2, the least a verdict over
// processes needs. Quiet points (the kernel clock's 0.1-0.3% between processes) are called
// unchanged there and cost half of a first look of 4; noisier ones go on to 4, 6, 10, 12 as before,
// with each look's share of the error rates (tests/compare/test_sequential.cpp, FirstLookOfTwo).
constexpr int kFirstLook = 2;

// The verdicts ab keeps from look to look, by point key: each look's report is built afresh from
// every process, and keep_verdicts puts these rows back into it.
//
// A point called unchanged keeps that verdict: a later look has a smaller share of the error
// rates, so on the same processes its interval is wider and it would reopen the point (in the
// fifth whole-suite ab, on an H100, 190 points called unchanged at the first look were reopened
// at the second; replayed with this rule the same processes leave 553 of 1,000 unchanged, not
// 373). A point called slower or faster is run again for the next look and kept when that look,
// with its new processes, calls it the same way: a change must hold up on new evidence (in that
// replay one GEMM read 2.1% slower per clock from two processes a side, and not from four). Where
// the looks end, or the run stops before the confirming look, the last call stands. (Until the
// sixth whole-suite run a change was instead judged again on the same processes at the smaller
// share, which took back a real 1.35% slowdown for no new evidence.) Both error rates still hold:
// each is at most the sum of the looks' shares, and confirming can only take a call back.
struct Kept {
  std::map<std::string, compare::Row> decided;     // unchanged, or a change called at two looks in a row
  std::map<std::string, compare::Row> to_confirm;  // a change called at the last look, run again for the next
};
// After a look: the kept rows put back, and this look's calls kept. `complete`: the step before the
// look ran all its processes; when it was interrupted, a change awaiting confirmation keeps the
// row of the look that called it.
void keep_verdicts(compare::Report& report, Kept& kept, bool complete);

// The smallest change (percent) a point could have called, about half the time, with the interval
// it reached: the larger of the threshold and the half-width plus half the threshold. NaN when it
// has no interval.
double detectable_percent(const compare::Comparison& c, const compare::MethodOptions& method);

// The note of a point still inconclusive when ab stopped (`stop` says why: "the time budget
// (--budget 60) ran out"): the smallest change it could have called (about half the time) with the
// interval it reached.
std::string undecided_note(const compare::Comparison& c, const compare::MethodOptions& method, const std::string& stop);

// The note of a change called at ab's last look only (`stop` says why there was no next look): the
// call stands, not yet confirmed on new processes.
std::string unconfirmed_note(const compare::Comparison& c, const std::string& stop);

}  // namespace pitot::driver::ab
