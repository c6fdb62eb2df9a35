"""The thesis-style report: each study's chapters and the code that fills them from recorded results
(paper/<study>/facts.py, paper/<study>/data/); `python3 -m paper.report_data` writes the generated numbers and tables."""
