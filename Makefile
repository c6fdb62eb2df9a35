# mwsep: the MilkyWay@Home separation likelihood study, rebuilt.
# This Makefile is the user interface; CMake builds the C++/CUDA code underneath.
#
#   make run       evaluate the default work unit (GPU if one is present, else all CPU cores)
#   make test      build and run every test that this machine can run (GPU tests skip without a GPU)
#   make test-gpu  run the GPU correctness checks (needs an NVIDIA GPU)
#   make bench-cpu CPU integrator throughput on the small work units
#   make experiments  every experiment on this machine's GPU (QUICK=1: small units only)
#   make docs      the reader's documentation (HTML) in docs/_build/html
#   make paper     the thesis-style report (HTML, and PDF unless PDF=0) from the recorded results
#   make reproduce everything: build, tests, experiments (with a GPU), figures, report, docs
#   make stars     generate the synthetic star catalogues of every work unit
#   make clean

BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
WU        ?= 3s-small
STARS     ?= data/stars/$(WU).txt
BACKEND   ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo cuda || echo cpu)
CMAKE_ARGS ?=
MWSEP     := $(BUILD)/mwsep
WORKUNITS := 3s-large 2s-large 3s-small 2s-small tiny

.PHONY: all build run test test-gpu bench-cpu stars experiments docs figures paper reproduce venv deps clean help

all: build

help:
	@sed -n "2,16p" Makefile

deps:
	@bash tools/check_deps.sh

$(BUILD)/CMakeCache.txt:
	@bash tools/check_deps.sh
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

data/stars/%.txt: data/workunits/%/astronomy_parameters.txt | build
	@mkdir -p data/stars
	$(MWSEP) generate -a $< -o $@ --count 100000 --seed 1

stars: $(foreach w,$(WORKUNITS),data/stars/$(w).txt)

run: build $(STARS)
	$(MWSEP) run -a data/workunits/$(WU)/astronomy_parameters.txt -s $(STARS) --backend $(BACKEND)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@nvidia-smi -L >/dev/null 2>&1 || echo "note: no GPU on this machine: the GPU correctness tests were skipped (run 'make test-gpu' where there is an NVIDIA GPU)"

test-gpu: build
	cd $(BUILD) && ctest --output-on-failure -L gpu

bench-cpu: build
	@mkdir -p experiments/results/cpu
	for w in 2s-small 3s-small; do \
	  $(MWSEP) bench-cpu -a data/workunits/$$w/astronomy_parameters.txt --work-unit $$w --repeats 3 \
	    --csv experiments/results/cpu/bench_cpu.csv || exit 1; done

# Python tools (Sphinx, Breathe, MyST), pinned in requirements.txt, in a project-local environment.
VENV := .venv
$(VENV)/.installed: requirements.txt
	@bash tools/check_deps.sh docs
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -r requirements.txt
	@touch $@
venv: $(VENV)/.installed

# The reader's documentation: Doxygen XML of src/ and kernels/, then Sphinx + Breathe; warnings are errors.
docs: $(VENV)/.installed
	@mkdir -p docs/_build/doxygen
	cd docs && doxygen Doxyfile
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"

# The report: numbers and tables (paper/report_data.py) and figures (figures/*.py) from the recorded
# results of GPU $(RESULTS), a check that every number and figure has its source, then Sphinx HTML and,
# unless PDF=0, the PDF through LaTeX (latexmk).
RESULTS ?= experiments/results/nvidia-h200
PDF ?= 1
figures: $(VENV)/.installed
	$(VENV)/bin/python figures/make_figures.py --results $(RESULTS) --out figures/out

paper: figures
	$(VENV)/bin/python paper/report_data.py $(RESULTS)
	python3 tools/check_report.py
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html paper paper/_build/html
	@echo "report: paper/_build/html/index.html"
ifneq ($(PDF),0)
	@bash tools/check_deps.sh pdf
	$(VENV)/bin/sphinx-build -W --keep-going -q -b latex paper paper/_build/latex
	$(MAKE) -C paper/_build/latex LATEXMKOPTS="-interaction=nonstopmode -halt-on-error" all-pdf > paper/_build/latex.log 2>&1 || \
	  { tail -30 paper/_build/latex.log; exit 1; }
	@echo "report: paper/_build/latex/mwsep-report.pdf"
endif

# Everything from scratch: build, CPU validation (the tests), the experiments when this machine has a GPU,
# then figures, tables, report and documentation. Without a GPU the report is rebuilt from the recorded
# results, and it says so.
reproduce: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if nvidia-smi -L >/dev/null 2>&1; then \
	  $(MAKE) experiments && $(MAKE) paper docs RESULTS=experiments/results/$$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-'); \
	else \
	  echo "reproduce: no GPU on this machine: the report is rebuilt from the recorded results in $(RESULTS)"; \
	  $(MAKE) paper docs; \
	fi

# Every experiment of experiments/definitions on this machine's GPU (QUICK=1: small work units only).
# Resumes an interrupted sweep; without a GPU it says so and fails.
experiments: build
	python3 experiments/run.py --build $(BUILD) $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY))

clean:
	rm -rf $(BUILD)
