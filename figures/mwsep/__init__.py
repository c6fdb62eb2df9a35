"""The MilkyWay@Home separation study's figures, one module per figure, each with make(facts, out): drawn from the
study's facts (paper/mwsep/facts.py), its published numbers included; the claims figure (fig_claims) draws the
effects the report's claims table judges."""
FIGURES = ["fig_4_3_memory_spaces", "fig_4_4_division_sqrt", "fig_4_5_loop_unrolling", "fig_4_6_scaling",
           "fig_5_1_cpu_vs_gpu", "fig_5_2_speedup", "fig_5_3_optimized_vs_unoptimized", "fig_fp64_pipe",
           "fig_registers_occupancy", "fig_fit_progress", "fig_search_methods", "fig_separation", "fig_claims"]
