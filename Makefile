# gpu_studies: the MilkyWay@Home separation likelihood study and the GPU case studies (experiments/studies.json), rebuilt.
# This Makefile is the user interface; CMake builds the C++/CUDA code underneath.
#
#   make run       one likelihood of the default work unit (GPU if one is present, else all CPU cores): builds the
#                  mwsep program alone, quietly (the tools' output in build/logs/run.log), and checks the result
#                  against the unit's stored values (WU=tiny: the small unit, seconds)
#   make test      build and run every test that this machine can run (GPU tests skip without a GPU)
#   make test-gpu  run the GPU correctness checks, one process per test program, concurrently; time recorded (needs a GPU)
#   make test-sanitize  the tests again, built with AddressSanitizer and UndefinedBehaviorSanitizer (CPU only)
#   make test-boinc  mwsep built as a BOINC application (needs libboinc-app-dev), tested standalone
#   make fuzz      the input readers under libFuzzer (clang), FUZZ_SECONDS each (default 20)
#   make bench-cpu CPU integrator throughput and skipping counts (no GPU needed), into a fresh folder
#   make experiments  every experiment on this machine's GPU into a fresh folder (OUT=, QUICK=1, ONLY=, STUDY=, PEER=)
#   make compare   compare a fresh results folder (NEW=) with a committed one (REF=): a verdict per result (OUT=)
#   make reproduce-check  the reviewer's kit: every study's headline claims re-run and judged (REF=, PEER=, OUT=, BUDGET=, CLAIMS=, DRY=1, JUDGE=)
#   make compare-claims  the claim verdicts of two results folders side by side (A=, B=)
#   make archive   the archive to deposit: source, results, records, licence texts, checksums, .zenodo.json (OUT=)
#   make docs      the reader's documentation (HTML) in docs/_build/html
#   make paper     the thesis-style report (HTML, and PDF unless PDF=0) from the recorded results (RESULTS=, STUDY=)
#   make view      serve the built report (and the documentation) on a local port and print its address
#   make linkcheck every local link and #anchor of the built documentation and report (after make docs paper)
#   make reproduce everything: build, tests, experiments (with a GPU), figures, report, docs
#   make stars     generate the synthetic star catalogues of every work unit
#   make clean     remove what the builds made (the build folders, the generated star catalogues); distclean:
#                  also the Python environment, the built documentation, report and figures
#   NO_INSTALL=1   with any target: install no Debian package (as root, missing ones are installed otherwise)

BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
WU        ?= 3s-small
STARS     ?= data/stars/$(WU).txt
BACKEND   ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo cuda || echo cpu)
CMAKE_ARGS ?=
MWSEP     := $(BUILD)/mwsep
WORKUNITS := 3s-large 2s-large 3s-small 2s-small tiny
comma     := ,

export NO_INSTALL

.PHONY: all build mwsep run view linkcheck distclean test test-gpu test-sanitize test-boinc fuzz bench-cpu stars experiments compare compare-claims reproduce-check archive docs figures paper reproduce venv deps clean help

all: build

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@bash tools/check_deps.sh

$(BUILD)/CMakeCache.txt:
	@bash tools/check_deps.sh
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The mwsep program alone (what make run and the star catalogues need).
mwsep: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target mwsep

data/stars/%.txt: data/workunits/%/astronomy_parameters.txt | mwsep
	@mkdir -p data/stars
	$(MWSEP) generate -a $< -o $@ --count 100000 --seed 1

stars: $(foreach w,$(WORKUNITS),data/stars/$(w).txt)

# Quiet: one line per step (deps, configure, build, stars, run), the tools' output in $(BUILD)/logs/run.log; the
# result is checked against data/workunits/$(WU)/expected.json where the unit has one (tools/check_run.py).
run: export BUILD := $(BUILD)
run: export JOBS := $(JOBS)
run: export WU := $(WU)
run: export STARS := $(STARS)
run: export BACKEND := $(BACKEND)
run: export CMAKE_ARGS := $(CMAKE_ARGS)
run:
	@bash tools/make_run.sh

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@nvidia-smi -L >/dev/null 2>&1 || echo "note: no GPU on this machine: the GPU correctness tests were skipped (run 'make test-gpu' where there is an NVIDIA GPU)"

# The GPU tests, one process per GoogleTest program, all at once (a program with a RUN_SERIAL test first, alone);
# the wall time and counts are recorded in $(TEST_GPU_RECORD) (tools/test_gpu.py), which is where a stated time
# comes from.
TEST_GPU_RECORD ?= $(BUILD)/test-gpu.json
test-gpu: build
	python3 tools/test_gpu.py $(BUILD) --record $(TEST_GPU_RECORD)

# The tests built with AddressSanitizer and UndefinedBehaviorSanitizer, in their own folder (CPU only): a
# memory error, a leak or undefined behaviour fails the test that triggers it. Debug information makes the
# reports name source lines. Left out of this run: the stored-output tests (label expected), whose work-unit
# integrals take minutes under the sanitizers and run the same integrator code as the quick integrator
# tests; and the command-line tests that run the program under `ulimit -v`, which leaves no room for
# AddressSanitizer's shadow memory (terabytes of address space, reserved at start), so the program cannot
# start there (the fuzz targets run the readers under libFuzzer's memory limit instead).
SANITIZE_BUILD ?= build-sanitize
SANITIZE_CTEST ?= -LE expected \
  -E '^CommandLine\.(AHugeDeclaredStarCountIsNotReservedUpFront|OverlongLinesAreRefusedWithFileAndLine|OversizedWorkIsRefusedUnlessForced)$$'
$(SANITIZE_BUILD)/CMakeCache.txt:
	@bash tools/check_deps.sh
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Release -DMWSEP_SANITIZE=ON $(CMAKE_ARGS)

test-sanitize: $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	cd $(SANITIZE_BUILD) && ctest --output-on-failure -j $(JOBS) $(SANITIZE_CTEST)

# mwsep run as a BOINC application (MWSEP_BOINC, docs/mwsep/boinc.md), in its own folder, CPU only and
# without the fit: only the program is built, and only its BOINC tests run, standalone (no BOINC client).
BOINC_BUILD ?= build-boinc
$(BOINC_BUILD)/CMakeCache.txt:
	cmake -S . -B $(BOINC_BUILD) -DCMAKE_BUILD_TYPE=Release -DMWSEP_CUDA=OFF -DMWSEP_FIT=OFF -DMWSEP_BOINC=ON $(CMAKE_ARGS)

test-boinc: $(BOINC_BUILD)/CMakeCache.txt
	cmake --build $(BOINC_BUILD) -j $(JOBS) --target mwsep
	cd $(BOINC_BUILD) && ctest --output-on-failure -j $(JOBS) -L boinc

# The three input readers (astronomy parameters, search parameters, star catalogues) under libFuzzer with
# the sanitizers, FUZZ_SECONDS each, from a seed corpus of the checkout's inputs (tests/fuzz/run.sh).
# libFuzzer comes with clang, so this build uses clang whatever the default compiler is. Warnings are not
# errors here: the g++ builds hold the code to that, and clang with the instrumentation warns of vector
# loops it cannot vectorise, which does not matter to a fuzzer.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
$(FUZZ_BUILD)/CMakeCache.txt:
	@bash tools/check_deps.sh fuzz
	CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DMWSEP_FUZZ=ON -DMWSEP_WERROR=OFF -DBUILD_TESTING=OFF $(CMAKE_ARGS)

fuzz: $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_astronomy_parameters fuzz_search_parameters fuzz_stars fuzz_fit_checkpoint
	bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The CPU experiments alone (no GPU needed), by the runner, into a fresh folder (OUT= names one).
bench-cpu: build
	python3 experiments/run.py --build $(BUILD) --only bench_cpu,skipping $(if $(OUT),--out $(OUT))

# Python tools (Sphinx, Breathe, MyST, matplotlib), the direct ones in requirements.txt, every package pinned by
# requirements.lock, in a project-local environment (Python 3.11 or newer; no C++ tool chain needed), with the
# project's own packages (experiments, paper, figures, tools; pyproject.toml) installed editable into it, built by
# the pinned setuptools (no download beyond the pins).
VENV := .venv
$(VENV)/.installed: requirements.txt requirements.lock pyproject.toml
	@bash tools/check_deps.sh python
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -r requirements.txt -c requirements.lock
	$(VENV)/bin/pip install -q --no-deps --no-build-isolation -e .
	@touch $@
venv: $(VENV)/.installed

# The reader's documentation: Doxygen XML of src/ and kernels/, then Sphinx + Breathe; warnings are errors.
docs: $(VENV)/.installed
	@bash tools/check_deps.sh docs
	@mkdir -p docs/_build/doxygen
	cd docs && doxygen Doxyfile
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"

# The report: numbers and tables (python -m paper.report_data) and figures (figures/) from the recorded
# results of GPU $(RESULTS), set beside the GPUs of COMPARE (a space-separated list of results folders;
# default: every other committed GPU folder), a check that every number and figure has its source, then
# Sphinx HTML and, unless PDF=0, the PDF through LaTeX (latexmk), its source and log checked by tools/check_pdf.py
# (PDF=0 still writes and checks the LaTeX source).
RESULTS ?= experiments/results/nvidia-h200
export COMPARE
PDF ?= 1
figures: $(VENV)/.installed
	$(VENV)/bin/python -m figures.make_figures --results $(RESULTS) --out figures/out $(foreach s,$(STUDY),--study $(s))

paper: figures
ifneq ($(STUDY),)
	$(VENV)/bin/python -m paper.report_data $(RESULTS) $(foreach s,$(STUDY),--study $(s))
	PAPER_STUDY="$(STUDY)" $(VENV)/bin/sphinx-build -W --keep-going -q -b html paper paper/_build/preview
	@echo "report preview ($(STUDY)): paper/_build/preview/_preview/index.html"
else
	$(VENV)/bin/python -m paper.report_data $(RESULTS)
	python3 -m tools.check_report
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html paper paper/_build/html
	@echo "report: paper/_build/html/index.html"
endif
ifeq ($(STUDY),)
ifeq ($(PDF),1)
	@bash tools/check_deps.sh pdf
endif
	@# The LaTeX source, also without LaTeX (PDF=0), checked for what would stop or spoil the PDF.
	$(VENV)/bin/sphinx-build -W --keep-going -q -b latex paper paper/_build/latex
	python3 -m tools.check_pdf --tex paper/_build/latex/mwsep-report.tex
ifeq ($(PDF),1)
	$(MAKE) -C paper/_build/latex LATEXMKOPTS="-interaction=nonstopmode -halt-on-error" all-pdf > paper/_build/latex.log 2>&1 || \
	  { tail -30 paper/_build/latex.log; exit 1; }
	python3 -m tools.check_pdf --log paper/_build/latex/mwsep-report.log
	@echo "report: paper/_build/latex/mwsep-report.pdf"
endif
endif

# Everything from scratch: build, CPU validation (the tests), the experiments when this machine has a GPU,
# then figures, tables, report and documentation. Without a GPU the report is rebuilt from the recorded
# results, and it says so.
reproduce: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if nvidia-smi -L >/dev/null 2>&1; then \
	  fresh=experiments/results/local/reproduce-$$(date -u +%Y%m%d-%H%M); \
	  $(MAKE) experiments OUT=$$fresh && $(MAKE) paper docs RESULTS=$$fresh; \
	else \
	  echo "reproduce: no GPU on this machine: the report is rebuilt from the recorded results in $(RESULTS)"; \
	  $(MAKE) paper docs; \
	fi

# Every declared experiment (experiments/definitions/<study>/) on this machine's GPU, by the one runner, into
# a fresh folder experiments/results/local/<gpu>-<date>/ (OUT= names one; running again on the same OUT
# resumes it). QUICK=1: small work units only; ONLY=a,b: those experiments; STUDY=ryoo,munch: those studies; PEER=path: also time the
# public application (docs/peer.md). Without a GPU it says so and fails.
experiments: build
	python3 experiments/run.py --build $(BUILD) $(if $(OUT),--out $(OUT)) $(if $(QUICK),--quick) \
	  $(if $(ONLY),--only $(ONLY)) $(if $(STUDY),$(foreach s,$(subst $(comma), ,$(STUDY)),--study $(s))) \
	  $(if $(PEER),--peer $(PEER))

# A fresh results folder against the committed results of the same GPU: a verdict per result file, each
# compared by its kind's declared key columns, value and tolerance (KINDS in experiments/studies/<study>.py;
# docs/harness.md). NEW= the fresh folder, REF= the committed one; compare.md and compare.json go to OUT=
# (default build/compare/<NEW>-vs-<REF>), never into a compared or committed folder. NEW= a committed folder is
# refused unless OUT= says where its report goes.
compare:
	@test -n "$(NEW)" -a -n "$(REF)" || { echo "usage: make compare NEW=experiments/results/local/<folder> REF=experiments/results/<gpu> [OUT=build/compare/<name>]"; exit 2; }
	python3 experiments/compare.py $(NEW) $(REF) $(if $(OUT),--out-dir $(OUT),--fresh-new --out-dir build/compare/$(notdir $(abspath $(NEW)))-vs-$(notdir $(abspath $(REF))))

# The reviewer's kit (experiments/reproduce_check.py, declared in experiments/reproduce_check.json): the
# headline claims of every study, each run by the runner into a fresh folder under experiments/results/local/,
# judged by the report's claims tables (holds / does not hold here / not testable here, beside REF's verdict) and
# its timings compared with REF (default: the committed folder of this GPU's model, else the nearest, said so;
# repeated / not repeated / too noisy to judge); two lines per claim with its time, also in reproduce_check.md
# there. It prints its estimate first and refuses without a GPU. DRY=1: what would run, and the estimate (no GPU,
# no build needed); JUDGE=<folder>: judge a recorded folder, nothing runs (no GPU needed); OUT=: a folder (an
# existing one resumes); BUDGET=: seconds, start no claim past them; CLAIMS=a,b: those claims only.
reproduce-check: $(if $(DRY)$(JUDGE),,build)
	python3 experiments/reproduce_check.py --build $(BUILD) $(if $(REF),--ref $(REF)) $(if $(OUT),--out $(OUT)) \
	  $(if $(PEER),--peer $(PEER)) $(if $(BUDGET),--budget $(BUDGET)) $(if $(CLAIMS),--claims $(CLAIMS)) $(if $(DRY),--dry-run) \
	  $(if $(JUDGE),--judge $(JUDGE))

# The claim verdicts of two results folders side by side (experiments/claim_verdicts.py): every headline claim of
# the kit and every claim the report's tables judge, built from A= and from B=, each difference named; timings
# compared where both hold one GPU model. Exit 1 when a verdict differs. No GPU needed; nothing is written.
compare-claims:
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare-claims A=experiments/results/<gpu> B=<another results folder>"; exit 2; }
	python3 experiments/claim_verdicts.py $(A) $(B)

# The archive to deposit (tools/archive.py, docs/release.md): the commit's tree by git archive (source, committed
# results, records, licence texts), its source manifest, .zenodo.json and SHA256SUMS, as
# gpu_studies-<version>-<commit>.tar.gz in OUT= (default build/archive), with its SHA-256 beside it; an archive
# of that name already there is refused, never overwritten.
archive:
	python3 -m tools.archive $(if $(OUT),--out $(OUT))

# The built report (and the documentation) served on a free local port, its address printed (tools/view.py);
# with a desktop, opened in the browser too.
view:
	@python3 -m tools.view --open

# Every local link and #anchor of the documentation and the report resolves, the links between the two
# included, and no page loads anything from the network (tools/check_links.py); after make docs and make paper.
linkcheck:
	python3 -m tools.check_links docs/_build/html paper/_build/html

# clean: what the builds made (the build folders, the generated star catalogues); distclean: also the Python
# environment, the documentation, the report, its figures and generated data. Results under
# experiments/results/local/ are never removed.
clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(BOINC_BUILD) $(FUZZ_BUILD) data/stars

distclean: clean
	rm -rf $(VENV) docs/_build docs/doxygen paper/_build paper/_generated paper/_preview figures/out
