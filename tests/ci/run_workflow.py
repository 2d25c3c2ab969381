#!/usr/bin/env python3
"""Runs the example workflow's `bench` job as GitHub would, on this machine, for a push to main and
then for a pull request: a stand-in runner (no GitHub, no GPU) for the CPU build in CI.

usage: run_workflow.py WORKFLOW PITOT_PREFIX [--cuda]

A scratch project (the README's my_bench.cpp, built against the pitot installed at PITOT_PREFIX,
`pitot init --dir .bench`) gets two commits. With --cuda (on a CUDA machine, by hand: the H200
run is in docs/results/users-h200.md) the project is the README's my_copy.cu instead, so the
database holds a GPU suite's two environments (kernel clock and events). The stand-in runner
evaluates each step's `if:`, expands `${{ ... }}`, runs `run:` steps with bash as GitHub does (-e, pipefail), keeps
GITHUB_OUTPUT per step and treats `uses:` steps as GitHub would for what follows: checkout is the
scratch repository itself, upload-artifact copies its path (and fails on a missing one).
The project adapts the workflow's `env` block as its comments say: PITOT is the installed driver.
Checks: the push leaves a results folder for the results job; the pull request's Compare step
exits 0 or 1 (never 2: no input error such as a demand for --env), writes the PR comment, and
the job passes on unchanged code.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

WORKFLOW, PREFIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CUDA = sys.argv[3:] == ["--cuda"]
if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and not CUDA):
    sys.exit("usage: run_workflow.py WORKFLOW PITOT_PREFIX [--cuda]")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


class Context(dict):
    """A GitHub expression context: dotted lookups; anything missing is empty and equals ''
    (as in GitHub's expressions)."""

    def __getattr__(self, name):
        value = self.get(name, Context())
        return Context(value) if isinstance(value, dict) else value

    def __eq__(self, other):
        return len(self) == 0 and other == "" if isinstance(other, str) else dict.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None


def evaluate(expr, ctx):
    """The small part of GitHub's expression language the workflow uses: contexts, literals in
    single quotes, ==, !=, &&, ||, !, always(), cancelled(), success()."""
    py = expr.strip()
    py = re.sub(r"\$\{\{(.*)\}\}", r"\1", py)
    py = py.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    py = py.replace("always()", "True").replace("cancelled()", "False").replace("success()", "ctx_success")
    names = {k: Context(v) if isinstance(v, dict) else v for k, v in ctx.items()}
    return eval(py, {"__builtins__": {}, "True": True, "False": False}, names)  # noqa: S307 (our own file)


def expand(text, ctx):
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), ctx)), str(text))


def read_outputs(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def run_job(job, workflow_env, ctx, workdir, runner_temp, artifacts, extra_env):
    """Runs the job's steps in order; returns (job passed, {step id: outputs}, step log)."""
    ctx = dict(ctx, steps={}, ctx_success=True)
    env = dict(os.environ)
    env.update({k: expand(v, ctx) for k, v in workflow_env.items()})
    env.update(extra_env)
    env.update({k: expand(v, ctx) for k, v in job.get("env", {}).items()})
    ctx["env"] = {k: env[k] for k in list(workflow_env) + list(job.get("env", {}))}
    passed, log = True, []
    for step in job["steps"]:
        ctx["ctx_success"] = passed
        cond = step.get("if")
        if cond is not None and not evaluate(str(cond), ctx):
            continue
        if cond is None and not passed:
            continue  # GitHub skips later steps after a failure unless their if says otherwise
        name = step.get("name", step.get("uses", "step"))
        if "uses" in step:
            action = step["uses"].split("@")[0]
            if action == "actions/upload-artifact":
                src = os.path.join(workdir, expand(step["with"]["path"], ctx))
                dst = os.path.join(artifacts, expand(step["with"]["name"], ctx))
                if os.path.isdir(src):
                    shutil.copytree(src, dst, dirs_exist_ok=True)
                elif os.path.isfile(src):
                    os.makedirs(dst, exist_ok=True)
                    shutil.copy(src, dst)
                elif step["with"].get("if-no-files-found") == "error":
                    log.append((name, 1))
                    passed = False
            continue  # checkout: the scratch repository is the checkout
        step_env = dict(env, GITHUB_OUTPUT=os.path.join(runner_temp, f"out-{len(log)}"),
                        GITHUB_STEP_SUMMARY=os.path.join(runner_temp, "summary.md"))
        step_env.update({k: expand(v, ctx) for k, v in step.get("env", {}).items()})
        open(step_env["GITHUB_OUTPUT"], "w").close()
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(step["run"], ctx)],
                           cwd=workdir, env=step_env, capture_output=True, text=True, timeout=1800)
        print(f"--- {name}: exit {r.returncode}\n{r.stdout[-2500:]}{r.stderr[-2500:]}", flush=True)
        log.append((name, r.returncode))
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": read_outputs(step_env["GITHUB_OUTPUT"])}
        if r.returncode != 0:
            passed = False
    return passed, ctx["steps"], log


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run(["git", "-C", repo] + list(args), check=True, env=env, capture_output=True,
                          text=True).stdout.strip()


def make_project(root):
    """The README's CPU example as a user's repository, with `pitot init --dir .bench`."""
    repo = os.path.join(root, "project")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    if CUDA:
        write_cuda_project(repo)
    else:
        write_cpu_project(repo)
    r = subprocess.run([os.path.join(PREFIX, "bin", "pitot"), "init", "--dir", ".bench", "--branch", "main"],
                       cwd=repo, capture_output=True, text=True)
    check(r.returncode == 0, f"pitot init --dir .bench exits 0 ({r.stderr})")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def write_cpu_project(repo):
    with open(os.path.join(repo, "bench.cpp"), "w") as f:
        f.write("""#include <pitot/pitot.hpp>
#include <cstdint>
void sum_ints(pitot::State& state) {
  const auto n = state.get_int("n");
  std::int64_t s = 0;
  state.exec([&] {
    for (std::int64_t i = 0; i < n; ++i) s = s * 31 + i;
  });
  if (s == 42) state.skip("never");  // s is used: the loop is not optimized away
}
PITOT_BENCHMARK(sum_ints).axis("n", {1000, 100000});
""")
    with open(os.path.join(repo, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(p LANGUAGES CXX)\n"
                "find_package(pitot REQUIRED)\npitot_add_benchmark(bench bench.cpp)\n")


def write_cuda_project(repo):
    """The README's GPU example (gpu/my_copy.cu and its CMakeLists.txt), taken from the README."""
    readme = open(os.path.join(os.path.dirname(WORKFLOW), "..", "..", "README.md")).read()
    for name in ("my_copy.cu", "CMakeLists.txt"):
        m = re.search(r"<!-- file: gpu/" + re.escape(name) + r" in [^>]*-->\n```\w*\n(.*?)```", readme, re.S)
        if not m:
            sys.exit(f"run_workflow.py: the README has no gpu/{name} block")
        with open(os.path.join(repo, name), "w") as f:
            f.write(m.group(1))


def main():
    with open(WORKFLOW) as f:
        wf = yaml.safe_load(f)
    job = wf["jobs"]["bench"]
    root = tempfile.mkdtemp(prefix="pitot-workflow-")
    repo = make_project(root)
    # The installed pitot first; a CMAKE_PREFIX_PATH already set (its dependencies) stays after it.
    prefix_path = os.pathsep.join(p for p in (PREFIX, os.environ.get("CMAKE_PREFIX_PATH", "")) if p)
    extra = {"PITOT": os.path.join(PREFIX, "bin", "pitot"), "CMAKE_PREFIX_PATH": prefix_path,
             "PITOT_ASV_HELPER": "true"}
    matrix = {"gpu": job["strategy"]["matrix"]["gpu"][0]}

    # A push to main: the suite runs and its results are handed on.
    base = git(repo, "rev-parse", "HEAD")
    temp, artifacts = os.path.join(root, "temp-push"), os.path.join(root, "artifacts-push")
    os.makedirs(temp)
    ctx = {"github": {"event_name": "push", "sha": base, "ref": "refs/heads/main", "repository": "o/p",
                      "event": {}}, "matrix": matrix, "runner": {"temp": temp}}
    extra_push = dict(extra, GITHUB_SHA=base, GITHUB_EVENT_NAME="push", RUNNER_TEMP=temp)
    passed, _, log = run_job(job, wf.get("env", {}), ctx, repo, temp, artifacts, extra_push)
    check(passed, f"push: the bench job passes ({log})")
    results = os.path.join(artifacts, f"pitot-results-{matrix['gpu']}")
    check(os.path.isfile(os.path.join(results, "benchmarks.json")), "push: benchmarks.json handed on")
    check(any(n.startswith(base[:8]) for n in os.listdir(os.path.join(results, matrix["gpu"]))) if
          os.path.isdir(os.path.join(results, matrix["gpu"])) else False, "push: the commit's results handed on")

    # A pull request with a second commit (unchanged benchmark): base and head run and compare.
    with open(os.path.join(repo, "NOTES"), "w") as f:
        f.write("a change that does not touch the benchmark\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    shutil.rmtree(os.path.join(repo, "build"), ignore_errors=True)
    head = git(repo, "rev-parse", "HEAD")
    temp, artifacts = os.path.join(root, "temp-pr"), os.path.join(root, "artifacts-pr")
    os.makedirs(temp)
    ctx = {"github": {"event_name": "pull_request", "sha": head, "ref": "refs/pull/1/merge", "repository": "o/p",
                      "event": {"pull_request": {"base": {"sha": base}, "number": 1,
                                                 "head": {"repo": {"full_name": "o/p"}}}}},
           "matrix": matrix, "runner": {"temp": temp}}
    extra_pr = dict(extra, GITHUB_SHA=head, GITHUB_EVENT_NAME="pull_request", RUNNER_TEMP=temp)
    passed, steps, log = run_job(job, wf.get("env", {}), ctx, repo, temp, artifacts, extra_pr)
    code = steps.get("compare", {}).get("outputs", {}).get("code")
    check(code in ("0", "1"), f"pull request: compare exits 0 or 1, not an input error (code {code!r}; {log})")
    comment = os.path.join(artifacts, f"pitot-compare-{matrix['gpu']}", "comment.md")
    check(os.path.isfile(comment) and "pitot compare" in open(comment).read(),
          "pull request: the comment for the PR is handed on")
    check(passed == (code == "0"), f"pull request: the job fails exactly on a confirmed regression ({log})")
    check(not os.path.exists(os.path.join(root, "pitot-base")), "pull request: the base worktree is cleaned up")
    if failures:
        print(f"{len(failures)} check(s) failed; scratch kept in {root}")
        sys.exit(1)
    shutil.rmtree(root, ignore_errors=True)
    print("workflow: passed")


main()
