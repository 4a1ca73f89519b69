#!/bin/bash
# Build, every GPU test and every other test but the scripts' and the cluster's; then the run
# settings in a real result's context, and compare.py on them.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > $O/cfg.txt 2>&1 && cmake --build build > $O/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
tail -2 $O/build.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv
ctest --test-dir build -L gpu --output-on-failure > $O/ctest_gpu.txt 2>&1; tail -3 $O/ctest_gpu.txt
echo "t=$(( $(date +%s) - start )) s"
ctest --test-dir build -LE gpu -E '^(scripts|cluster)' --output-on-failure > $O/ctest_cpu.txt 2>&1; tail -3 $O/ctest_cpu.txt
grep -hE "\*\*\*Failed|\*\*\*Timeout|Exception" $O/ctest_gpu.txt $O/ctest_cpu.txt | head -20
echo "t=$(( $(date +%s) - start )) s"
R=$O/run_settings; mkdir -p $R
build/gpubench --info --benchmark_filter='^no_such_family/' > $R/info_with_filter.txt 2>&1; echo "info with a filter: exit $?" >> $R/info_with_filter.txt
build/gpubench --benchmark_filter='^saxpy/driver/' --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_out=$R/saxpy_driver.json > /dev/null 2> $R/saxpy_driver.err; echo "saxpy driver rc=$?"
build/gpubench --benchmark_filter='^saxpy/driver/' --benchmark_repetitions=3 --benchmark_min_time=0.05s --benchmark_out=$R/saxpy_driver_min_time.json > /dev/null 2> $R/saxpy_driver_min_time.err; echo "min_time rc=$?"
cd scripts
python3 compare.py ../results/h200/ci_baseline.json $R/saxpy_driver.json > $R/baseline_vs_filtered.txt 2>&1; echo "compare.py exit $?" >> $R/baseline_vs_filtered.txt
python3 compare.py $R/saxpy_driver.json $R/saxpy_driver_min_time.json > $R/min_time_refused.txt 2>&1; echo "compare.py exit $?" >> $R/min_time_refused.txt
python3 merge_runs.py $R/saxpy_driver.json $R/saxpy_driver_min_time.json -o $R/merged.json > $R/merge_refused.txt 2>&1; echo "merge_runs.py exit $?" >> $R/merge_refused.txt
cd ..
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['context']; [print(k, c.get(k)) for k in ('benchmark_min_time','benchmark_min_warmup_time','benchmark_enable_random_interleaving','benchmark_filter','gpubench_version')]" $R/saxpy_driver.json
tail -2 $R/info_with_filter.txt; tail -3 $R/baseline_vs_filtered.txt; cat $R/min_time_refused.txt $R/merge_refused.txt
echo "t=$(( $(date +%s) - start )) s"
cd $O && tar czf all.tgz *.txt run_settings && rm -rf run_settings
