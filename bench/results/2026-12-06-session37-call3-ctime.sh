set -u
rm -rf /tmp/w && mkdir -p /tmp/w && python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('/tmp/w')" build-wheel/dist/tile-*.whl
T=/tmp/w/tile/bin/tilec; chmod +x $T
echo "nproc $(nproc)"; /usr/local/cuda/bin/ptxas --version | tail -1
/usr/bin/time -f "llvm-ptx %e s, %U user, %P cpu, %M KB" $T --arch=sm_90a -DT=bf16 --emit=ptx -o /tmp/m.ptx examples/torch/mlp.tile
ls -la /tmp/m.ptx
for n in 0 16; do /usr/bin/time -f "ptxas split=$n %e s, %U user, %P cpu, %M KB" /usr/local/cuda/bin/ptxas --split-compile $n --gpu-name sm_90a -o /tmp/m.cubin /tmp/m.ptx 2>&1 | grep -v C751; done
