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

// A point called unchanged keeps that verdict: a later look has a smaller share of the error
// rates, so on the same processes its interval is wider and it would reopen the point (in the
// fifth whole-suite ab, on an H100, 190 points called unchanged at the first look were reopened
// at the second; replayed with this rule the same processes leave 553 of 1,000 unchanged, not
// 373). A point called slower or faster is looked at again at every later look, and run again
// when a look no longer confirms it: a change must hold up to the last look it gets (in that
// replay one GEMM read 2.1% slower per clock from two processes a side, and not from four).
// Both error rates still hold: each is at most the sum of the looks' shares. `unchanged` keeps
// those rows by key; they are put back into every later report.
void keep_unchanged(compare::Report& report, std::map<std::string, compare::Row>& unchanged);

// The smallest change (percent) a point could have called, about half the time, with the interval
// it reached: the larger of the threshold and the half-width plus half the threshold. NaN when it
// has no interval.
double detectable_percent(const compare::Comparison& c, const compare::MethodOptions& method);

// The note of a point still inconclusive when ab stopped (`stop` says why: "the time budget
// (--budget 60) ran out"): the smallest change it could have called (about half the time) with the
// interval it reached.
std::string undecided_note(const compare::Comparison& c, const compare::MethodOptions& method, const std::string& stop);

}  // namespace pitot::driver::ab
