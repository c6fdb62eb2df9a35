"""Numbers and the table of the toy chapter, from <results>/toy/sums.csv."""
from paper.report.common import fmt, medians, table


def build(ctx):
    rows = ctx.rows("sums")
    seconds = medians(rows, value="seconds", key=("n",))
    sums = {r["n"]: int(r["sum"]) for r in rows}
    largest = max(sums, key=int)
    n = int(largest)
    ctx.n["toy_largest_n"] = str(n)
    ctx.n["toy_sum"] = str(sums[largest])
    ctx.n["toy_seconds"] = fmt(seconds[(largest,)], 2)
    ctx.n["toy_verdict"] = "equal to" if sums[largest] == n * (n + 1) // 2 else "NOT equal to"
    body = [[k, str(sums[k]), str(int(k) * (int(k) + 1) // 2), fmt(seconds[(k,)], 2)] for k in sorted(sums, key=int)]
    ctx.tables["table_toy"] = table("Table R@: the sums, measured and in closed form.",
                                    ["n", "sum", "n (n + 1) / 2", "seconds"], body)
