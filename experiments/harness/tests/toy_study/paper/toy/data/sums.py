"""Numbers and the table of the toy chapter, from the toy study's facts (paper/toy/facts.py)."""
from paper.report.common import fmt, table
from paper.report.facts import available


# [toy-chapter-begin]
def build(ctx, facts):
    s = available(facts.sums)  # MissingData (the chapter: "not measured") without sums.csv
    n = s.largest
    ctx.n["toy_largest_n"] = str(n)
    ctx.n["toy_sum"] = str(s.sums[n])
    ctx.n["toy_seconds"] = fmt(s.seconds[n], 2)
    ctx.n["toy_verdict"] = "equal to" if s.sums[n] == n * (n + 1) // 2 else "NOT equal to"
    body = [[str(k), str(s.sums[k]), str(k * (k + 1) // 2), fmt(s.seconds[k], 2)]
            for k in sorted(s.sums)]
    ctx.tables["table_toy"] = table("Table R@: the sums, measured and in closed form.",
                                    ["n", "sum", "n (n + 1) / 2", "seconds"], body)
# [toy-chapter-end]
