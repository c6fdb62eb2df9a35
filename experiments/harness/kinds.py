"""What a kind of result is: its columns, the columns that name one configuration, its measured value and
how two recordings of it are compared.

Every kind a study can write is declared once, as a `Kind`, in the study's module (or, for the kinds every
study shares, in experiments/harness/study.py). The runner, the results check (tools/check_results.py),
the results layer (experiments/harness/results.py) and the comparison of two folders
(experiments/compare.py) all read these declarations; nothing else says what a kind's file holds.

Comparison methods (`Compare.method`):
  median       the median of `value` per configuration (the `key` columns) must agree within its allowance:
               `tolerance` (relative), or, where it is larger, the uncertainty of the two medians (the
               order-statistic interval of each median, experiments/harness/stats.py; unknown where a kind
               whose rows are samples has one sample). A configuration whose allowance is above
               ALLOWANCE_CAP and whose change is within it is "too noisy to judge", never agreement. `noise`
               names the column of the engine's relative spread (its rows are samples)
  points       every column ending in `_pct` per configuration within `tolerance` percentage points
  exact        the `values` columns (all but the key when empty) identical per configuration
  correctness  every comparison passes in the new recording, worked out from its values and the declared
               `checks` (never from a `pass` column), and none of the reference's is missing; the largest
               `value` of each is reported
  marker       a text result: both contain `marker` (a clean sanitizer run, a passed test program)
  listing      `mwsep variants` text: registers and spills identical per kernel
  json_value   a JSON report: its `value` field within `tolerance` (relative)
  none         not compared, with the reason in `reason`; the verdict says "not compared"

What a definition of the kind may say (its inputs): `run_keys`, {key: Input} for each entry of the definition's
`runs`, and `definition_keys`, {key: Input} for its keys beside the common ones (DEFINITION_KEYS: name, kind,
runs, thesis, question, notes, after). An Input is a type (a small grammar: str, int, number, bool, list[T], dict[T],
dict, alternatives with |), a default (none: the key is required) and, where --quick changes it, the quick
default. The runner refuses a definition with an unknown, mistyped or missing key before any job runs
(experiments/harness/runner.py, check_definition) and hands the kind's method every declared key, defaults
filled in: a study module reads `run["key"]`, never a default of its own.
"""
import re
from dataclasses import dataclass, field


class _Required:
    def __repr__(self):
        return "required"


REQUIRED = _Required()
_UNSET = _Required()


@dataclass(frozen=True)
class Input:
    """One key a definition may give: its type (see type_errors), its default (REQUIRED: none, the key must be
    given), the default under --quick where it differs, and the values it may take (empty: any of its type)."""
    type: str
    default: object = REQUIRED
    quick: object = _UNSET
    choices: tuple = ()

    def __post_init__(self):
        _parse(self.type)  # a wrong type spelling is an error where it is declared
        object.__setattr__(self, "choices", tuple(self.choices))

    def default_for(self, quick):
        return self.quick if quick and self.quick is not _UNSET else self.default

    def describe(self):
        text = self.type
        if self.choices:
            text += " (one of " + ", ".join(map(str, self.choices)) + ")"
        if self.default is REQUIRED:
            return text + ", required"
        text += f", default {self.default!r}"
        return text + (f" ({self.quick!r} with --quick)" if self.quick is not _UNSET else "")


def _split(spec):
    """The alternatives of a type spelling, split at the '|' outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(spec[start:i])
            start = i + 1
    return [p.strip() for p in parts + [spec[start:]]]


def _parse(spec):
    for alt in _split(spec):
        m = re.fullmatch(r"(list|dict)\[(.+)\]", alt)
        if m:
            _parse(m.group(2))
        elif alt not in ("str", "int", "number", "bool", "dict", "list", "none"):
            raise ValueError(f"unknown input type {alt!r} in {spec!r}")


def type_errors(spec, value):
    """Why @p value is not of type @p spec (empty when it is). str, int, number (an int or a float), bool,
    none (JSON null), list (of anything), dict (of anything), list[T] and dict[T] (every item or value of type
    T), and alternatives T|U."""
    reasons = []
    for alt in _split(spec):
        m = re.fullmatch(r"(list|dict)\[(.+)\]", alt)
        if m:
            outer, inner = m.groups()
            if outer == "list" and isinstance(value, list):
                bad = [(i, v) for i, v in enumerate(value) if type_errors(inner, v)]
            elif outer == "dict" and isinstance(value, dict):
                bad = [(k, v) for k, v in value.items() if type_errors(inner, v)]
            else:
                continue
            if not bad:
                return ""
            reasons.append(f"item {bad[0][0]!r} is {bad[0][1]!r}, not {inner}")
            continue
        ok = {"str": isinstance(value, str), "bool": isinstance(value, bool), "none": value is None,
              "int": isinstance(value, int) and not isinstance(value, bool),
              "number": isinstance(value, (int, float)) and not isinstance(value, bool),
              "list": isinstance(value, list), "dict": isinstance(value, dict)}[alt]
        if ok:
            return ""
    return f"expected {spec}, got {value!r}" + (f" ({reasons[0]})" if reasons else "")


# The keys every definition may have, whatever its kind.
DEFINITION_KEYS = {"name": Input("str"), "kind": Input("str"), "runs": Input("list[dict]"),
                   "thesis": Input("str", ""), "question": Input("str", ""), "notes": Input("str", ""),
                   # experiments of the same study whose files this one's jobs read from the folder being recorded:
                   # where both are run, those run first (runner.in_run_order)
                   "after": Input("list[str]", [])}


@dataclass(frozen=True)
class Compare:
    """How two recordings of a kind compare. `checks` (correctness): how a row's pass is worked out from its
    values, each a (column, "<=" or ">", bound) with the bound a number, a column, or several columns (the
    largest); a row passes when every check whose column it has holds. The comparison recomputes pass from
    them and never reads a `pass` column; the results check refuses a row whose `pass` says otherwise."""
    method: str
    tolerance: float = 0.0
    noise: str = ""
    values: tuple = ()
    reason: str = ""
    checks: tuple = ()

    METHODS = ("median", "points", "exact", "correctness", "marker", "listing", "json_value", "json_arrays", "none")

    def __post_init__(self):
        if self.method not in self.METHODS:
            raise ValueError(f"unknown comparison method '{self.method}' (known: {', '.join(self.METHODS)})")
        if self.method == "none" and not self.reason:
            raise ValueError("a kind that is not compared says why (Compare('none', reason=...))")
        if self.method == "correctness" and not self.checks:
            raise ValueError("a correctness comparison declares how a row passes (checks=...)")
        for check in self.checks:
            if len(check) != 3 or check[1] not in ("<=", ">"):
                raise ValueError(f"a check is (column, '<=' or '>', bound): {check!r}")

    def describe(self):
        if self.method == "median":
            return (f"median within {self.tolerance:.0%} or the interval of the two medians, too noisy to judge "
                    f"above {ALLOWANCE_CAP:.0%}")
        if self.method == "points":
            return f"percentages within {self.tolerance:g} points"
        if self.method == "json_value":
            return f"within {self.tolerance:.0e} (relative)"
        if self.method == "json_arrays":
            return f"arrays {', '.join(self.values)} within {self.tolerance:.0e} (relative L2)"
        if self.method == "correctness":
            return "every comparison passes (" + ", ".join(f"{c} {op} {b if isinstance(b, (str, int, float)) else ' or '.join(b)}"
                                                            for c, op, b in self.checks) + "), none missing"
        return {"exact": "identical",
                "marker": "both whole and clean", "listing": "registers and spills identical",
                "none": "not compared: " + self.reason}[self.method]


# The largest allowance a comparison of medians judges: a configuration that allows more (its recordings too
# noisy, or a tolerance declared above it) is "too noisy to judge", never counted as agreement.
ALLOWANCE_CAP = 0.10

# A numeric column that holds a duration or a rate (by its name): its cells must be finite and positive.
TIME_COLUMN = re.compile(r"(^ms$|_ms$|_s$|^seconds$|_seconds$|^seconds_per|_us$|^us_per|_per_launch$|^ms_per|"
                         r"per_second|^gflops$|^gb_per_s$|^gbps$|^rate$)")


@dataclass(frozen=True)
class Kind:
    """One kind of result file. `columns`: what every CSV row has (empty for a text result); `numeric`: the
    columns that must hold numbers; `key`: the columns naming one configuration; `value`: the measured
    column (or JSON field); `host_only`: measured on the host alone (its provenance names no GPU); `marker`: a
    regular expression a whole text result contains; `suffix`: the file's ending (.csv, .log, .txt, .json);
    `host_specific`: which rows time the host's CPU and so describe that host (its CPU model is in the
    .meta.json), not the GPU; the comparison and the kit say so (by default every row of a host-only kind with
    a duration or rate);
    `times`: the columns that hold durations or rates, finite and positive in every row (by default the numeric
    columns TIME_COLUMN names), `may_be_zero` those of them that may also be 0;
    `tables`: the kind's further files, by a regular expression on the file name
    (e.g. {r"_progress\\.csv$": Kind(...), r"\\.log$": text_kind(...)}); `run_keys` and `definition_keys`:
    what a definition of the kind may say ({key: Input}; None: the kind declares no inputs, and no definition
    may name it)."""
    columns: tuple = ()
    key: tuple = ()
    value: str = ""
    compare: Compare = field(default_factory=lambda: Compare("none", reason="no comparison declared"))
    numeric: frozenset = frozenset()
    host_only: bool = False
    marker: str = ""
    suffix: str = ".csv"
    tables: dict = field(default_factory=dict)
    run_keys: dict = None
    definition_keys: dict = field(default_factory=dict)
    times: frozenset = None
    may_be_zero: frozenset = frozenset()
    host_specific: str = None

    def __post_init__(self):
        object.__setattr__(self, "columns", tuple(self.columns))
        twice = sorted({c for c in self.columns if self.columns.count(c) > 1})
        if twice:  # a reader of the CSV could not tell the two apart (the results check refuses such a header)
            raise ValueError(f"a kind's columns name {', '.join(twice)} twice")
        object.__setattr__(self, "key", tuple(self.key))
        object.__setattr__(self, "numeric", frozenset(self.numeric))
        # The durations and rates: finite and positive in every row (zero where may_be_zero allows it).
        if self.times is None:
            object.__setattr__(self, "times", frozenset(c for c in self.numeric if TIME_COLUMN.search(c)))
        object.__setattr__(self, "times", frozenset(self.times))
        object.__setattr__(self, "may_be_zero", frozenset(self.may_be_zero))
        # Which rows time the host's CPU, and so describe the host they were recorded on rather than its GPU:
        # every row of a host-only kind that times something; a GPU kind names its CPU rows (ryoo's applications:
        # variant cpu). Counts made on the host (skipped terms, source lines) describe no host.
        if self.host_specific is None:
            timed = self.host_only and self.compare.method == "median" and self.value in self.times
            object.__setattr__(self, "host_specific", "every row times the host's CPU" if timed else "")
        # The key may name columns that older files lack (they read as empty); the value is required.
        if self.compare.method in ("median", "correctness", "json_value") and not self.value:
            raise ValueError("a median, correctness or json_value comparison names its value")

    def for_file(self, relpath):
        """The declaration that applies to @p relpath: a further table of the kind whose pattern matches its
        name, else this one when the ending matches, else None (a file the kind does not declare)."""
        name = relpath.rsplit("/", 1)[-1]
        for pattern, table in self.tables.items():
            if re.search(pattern, name):
                return table
        return self if name.endswith(self.suffix) else None


# A text result: a log or listing, checked for its marker and compared by it.
def text_kind(marker, suffix=".log", host_only=False, method="marker", run_keys=None):
    return Kind(suffix=suffix, marker=marker, host_only=host_only, compare=Compare(method), run_keys=run_keys)


GTEST_PASSED = r"\[  PASSED  \] \d+ tests?\."
SANITIZER_CLEAN = r"(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)"

# The columns every timed GPU sample of every program carries (src/harness).
TIMING = ("sm_clock_mhz", "throttled", "noise_pct", "samples", "stop_reason")
# The column that tells a cold sample (the L2 flushed before it, `--cold`) from a warm one. Every timed GPU kind
# ends its key with it, so that a cold and a warm run of one configuration are two configurations and compare
# with their own kind. Files recorded before the benches could flush lack the column (it reads as empty; they
# were warm), so it is a key column, not a required one.
CACHE_KEY = ("cache",)
# What an empty key column of an older file means: a sample recorded before the benches could flush was warm.
KEY_DEFAULTS = {"cache": "warm"}


def key_value(row, column):
    """The value of key column @p column in @p row: empty where the row lacks it, or its KEY_DEFAULTS value."""
    return row.get(column, "") or KEY_DEFAULTS.get(column, "")
