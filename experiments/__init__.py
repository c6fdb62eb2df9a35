"""The experiments: the study declaration, the runner (harness), each study's module (studies), the kit and the
comparison. Run its commands as `python3 experiments/run.py` or `python3 -m experiments.run` from the checkout's root."""
