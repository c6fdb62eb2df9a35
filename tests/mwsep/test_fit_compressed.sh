#!/usr/bin/env bash
# mwsep fit --integrator compressed on the command line: the fit runs with the compressed quadrature, the
# optimum is evaluated again with the exact sum, and the two likelihoods printed agree within 1e-12; a
# --variant that does not match the integrator is refused before any work. Usage: test_fit_compressed.sh MWSEP WORKDIR
set -euo pipefail
mwsep=$1 dir=$2
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
"$mwsep" generate -a "$wu" -o stars.txt --count 400 --seed 9 --threads 1 > /dev/null
fit=(fit -a "$wu" -s stars.txt --box 0.05 --backend cpu --threads 2 --algorithm de --population 6 --generations 1
     --polish 10 --no-polish-from-start --no-uncertainties --seed 2 --quiet)
"$mwsep" "${fit[@]}" --integrator compressed > fit.log
line=$(grep '^likelihood at the optimum: compressed quadrature' fit.log) || { echo "no exact re-evaluation printed"; cat fit.log; exit 1; }
read -r compressed exact < <(echo "$line" | sed -E 's/.*compressed quadrature ([^,]*), exact sum ([^ ]*) .*/\1 \2/')
python3 - "$compressed" "$exact" <<'PY'
import sys
c, e = float(sys.argv[1]), float(sys.argv[2])
d = abs(c - e) / abs(e)
print(f"compressed {c!r} exact {e!r} relative difference {d:.2e}")
sys.exit(0 if d <= 1e-12 else 1)
PY
# The fit's own best likelihood is the compressed one printed on the first line.
grep -q "^likelihood $compressed " fit.log || { echo "the fit's likelihood is not the compressed one"; cat fit.log; exit 1; }
# (--variant belongs to the GPU backends: --backend cpu would refuse it for that reason first.)
if "$mwsep" "${fit[@]/#cpu/auto}" --integrator compressed --variant modern-f64 > bad.log 2>&1; then echo "a mismatched variant was accepted"; exit 1; fi
grep -q "does not match --integrator compressed" bad.log || { cat bad.log; exit 1; }
echo "the compressed fit's optimum agrees with its exact re-evaluation"
