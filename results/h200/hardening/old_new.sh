#!/usr/bin/env bash
# Old (8fe7cee, the session's start) against new (HEAD) on one H200: the families whose figures
# differed most from the gate's baseline card (host-timed launches, pageable copies), alternated.
set -u
O=$OUT; F='^launch/|^copy/(DtoH|HtoD)/pageable/'
for v in old new; do
  src=$([[ $v == old ]] && echo ab/old || echo .)
  t0=$EPOCHREALTIME
  { cmake -S $src -B build-$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON -DGPUBENCH_GIT_COMMIT=$([[ $v == old ]] && echo 8fe7cee71e2b || echo $GITC) && cmake --build build-$v -j16 --target gpubench; } > $O/build_$v.txt 2>&1 || { tail -20 $O/build_$v.txt; exit 1; }
  echo "build $v $t0 $EPOCHREALTIME" >> $O/wall.txt
done
nvidia-smi --query-gpu=uuid --format=csv,noheader > $O/cards.txt
for i in 1 2 3; do for v in old new; do
  t0=$EPOCHREALTIME
  build-$v/gpubench --benchmark_filter="$F" --sizes=4K,1M,64M,1G --benchmark_out=$O/${v}_$i.json > /dev/null 2>> $O/stderr_$v.txt
  echo "$v $i rc=$? $t0 $EPOCHREALTIME" >> $O/wall.txt
done; done
cat $O/wall.txt
