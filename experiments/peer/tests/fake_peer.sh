#!/usr/bin/env bash
# A stand-in for the public separation application in the tests of run_peer.py. It prints output in the
# shape the real program prints (on standard error; its checkpoint messages on standard output, after the
# clock time), with made-up numbers, and behaves like it where the tests need it to:
#   --version                     prints a version line and exits 0
#   a checkpoint in the folder    "resumes" from it: no integration lines (as the real one skips the integral)
#   no NVIDIA vendor file         the OpenCL loader finds no platform: error, exit 1
# It writes separation_checkpoint into its working folder, as the real one does.
# FAKE_PEER_MODE: ok (default) | cpu (runs on a CPU OpenCL device, exit 0) | amd (another vendor's GPU)
#                 | fail (exits 1 after the device lines) | no-likelihood-time | nan
# FAKE_PEER_LOG: a file to which one line per run is appended: cwd, whether it was empty, the arguments.
set -u
mode="${FAKE_PEER_MODE:-ok}"

if [ "${1:-}" = "--version" ]; then
    echo "milkyway_separation 1.46 Linux x86_64 double OpenCL " >&2
    exit 0
fi

astronomy="" stars="" flags=""
while [ $# -gt 0 ]; do
    case "$1" in
        -a) astronomy="$2"; shift 2 ;;
        -s) stars="$2"; shift 2 ;;
        *) flags="$flags $1"; shift ;;
    esac
done

if [ -n "${FAKE_PEER_LOG:-}" ]; then
    if [ -z "$(ls -A .)" ]; then empty=yes; else empty=no; fi
    echo "cwd=$PWD empty=$empty flags=${flags# }" >> "$FAKE_PEER_LOG"
fi

echo "Error loading Lua script '$astronomy': [string \"parameters_version: 0.04...\"]:1: '<name>' expected near '0.04' " >&2
echo "Switching to Parameter File '$astronomy'" >&2
streams=$(awk -F'[:,]' '/^number_streams:/ { print $2 + 0 }' "$astronomy")
echo "<number_WUs> 1 </number_WUs>" >&2
echo "<number_params_per_WU> $((6 * streams + 2)) </number_params_per_WU>" >&2
echo "Using AVX path" >&2

# The loader sees only the vendor files in OCL_ICD_VENDORS; the driver must be NVIDIA's, and the loader the one given.
icd_ok=no
if [ -n "${OCL_ICD_VENDORS:-}" ] && [ -z "${OCL_ICD_FILENAMES:-}" ] \
   && [ "$(ls -A "$OCL_ICD_VENDORS")" = "nvidia.icd" ] \
   && [ "$(basename "$(cat "$OCL_ICD_VENDORS/nvidia.icd")")" = "libnvidia-opencl.so.1" ] \
   && [ -f "$(cat "$OCL_ICD_VENDORS/nvidia.icd")" ] \
   && [ -f "${LD_LIBRARY_PATH:-/nonexistent}/libOpenCL.so.1" ]; then
    icd_ok=yes
fi
if [ "$icd_ok" != yes ] && [ "$mode" != cpu ]; then
    echo "Error getting number of platform (-1001): CL_PLATFORM_NOT_FOUND_KHR" >&2
    echo "Failed to get information about device" >&2
    echo "Error getting device and context (1): MW_CL_ERROR" >&2
    echo "Failed to calculate likelihood" >&2
    exit 1
fi

resumed=no
if [ -e separation_checkpoint ]; then
    echo "$(date +%H:%M:%S): Checkpoint exists. Attempting to resume from it"
    echo "$(date +%H:%M:%S): Successfully resumed checkpoint"
    resumed=yes
fi

echo "Found 1 platform" >&2
echo "Platform 0 information:" >&2
case "$mode" in
    cpu)
        echo "  Name:       Portable Computing Language" >&2
        echo "Using device 0 on platform 0" >&2
        echo "Found 1 CL device" >&2
        echo "Device 'cpu-sapphirerapids-Intel(R) Xeon(R) Processor' (GenuineIntel:0x8086) (CL_DEVICE_TYPE_CPU)" >&2
        echo "Driver version:      6.0" >&2 ;;
    amd)
        echo "  Name:       AMD Accelerated Parallel Processing" >&2
        echo "Using device 0 on platform 0" >&2
        echo "Found 1 CL device" >&2
        echo "Device 'gfx90a:sramecc+:xnack-' (Advanced Micro Devices, Inc.:0x1002) (CL_DEVICE_TYPE_GPU)" >&2
        echo "Driver version:      3614.0 (HSA1.1,LC)" >&2 ;;
    *)
        echo "  Name:       NVIDIA CUDA" >&2
        echo "  Vendor:     NVIDIA Corporation" >&2
        echo "Using device 0 on platform 0" >&2
        echo "Found 1 CL device" >&2
        echo "Device 'NVIDIA H200' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_GPU)" >&2
        echo "Board: " >&2
        echo "Driver version:      580.159.04" >&2
        echo "Version:             OpenCL 3.0 CUDA" >&2
        echo "Compute capability:  9.0" >&2
        echo "Max compute units:   132" >&2 ;;
esac

if [ "$mode" = fail ]; then
    echo "Error creating integral program from source" >&2
    echo "Failed to calculate likelihood" >&2
    exit 1
fi

if [ "$resumed" = no ]; then
    echo "Using a target frequency of 60.0" >&2
    echo "Using clWaitForEvents() for polling (mode -1)" >&2
    echo "Integration time: 0.251234 s. Average time per iteration = 1.570213 ms" >&2
    echo "Integral 0 time = 0.262101 s" >&2
fi
: > separation_checkpoint

echo "Running likelihood with $(head -n 1 "$stars") stars" >&2
if [ "$mode" != no-likelihood-time ]; then
    echo "Likelihood time = 0.401234 s" >&2
fi
sint="" slik=""
for i in $(seq 1 "$streams"); do
    sint="$sint $i.250000000000000 "
    slik="$slik -$((i + 3)).500000000000000 "
done
background="0.500000000000000"
[ "$mode" = nan ] && background="nan"
echo "<background_integral> $background </background_integral>" >&2
echo "<stream_integral> $sint</stream_integral>" >&2
echo "<background_likelihood> -3.250000000000000 </background_likelihood>" >&2
echo "<stream_only_likelihood> $slik</stream_only_likelihood>" >&2
echo "<search_likelihood> -2.875000000000000 </search_likelihood>" >&2
exit 0
