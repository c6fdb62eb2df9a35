#!/usr/bin/env bash
# Same-host A/B of the exact fit's evaluation: the bundle's mwsep (new) against fit-old's, alternating.
set -uo pipefail
o=$OUT/ab; mkdir -p "$o"
nvidia-smi -L; nproc
tar -C .device-input -xJf .device-input/fit.tar.xz && tar -C .device-input -xJf .device-input/fit-old.tar.xz
export LD_LIBRARY_PATH=$PWD/.device-input/fit/lib
for k in 1 2; do
  for v in new old; do
    b=.device-input/fit/bin/mwsep; [ $v = old ] && b=.device-input/fit-old/bin/mwsep
    t0=$SECONDS
    $b fit -a data/workunits/3s-small/astronomy_parameters.txt -s data/stars/3s-small.txt \
      --search-parameters .device-input/ab/start.txt --truth .device-input/ab/truth.txt --box 0.2 --algorithm cmaes \
      --population 16 --generations ${GENS:-50} --polish ${POLISH:-600} --seed 1 --report "$o/$v-$k.json" \
      --progress "$o/$v-$k.csv" --devices 0 > "$o/$v-$k.log" 2>&1
    echo "$v $k rc=$? $((SECONDS - t0)) s"; $b --version | head -2 | tail -1
  done
done
