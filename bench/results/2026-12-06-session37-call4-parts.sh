# tilec's LLVM work on the GPU machine's 16 cores with the module cut into
# 8, 16 or 32 parts (TILE_SPLIT_PARTS at build time; static tilecs built
# here with make wheel, carried xz'd in build-parts/): mlp.tile bf16 to PTX.
set -u
export TILE_STDLIB=$PWD/stdlib TILE_LIBDEVICE=$PWD/build-parts/libdevice.10.bc
for n in 8 16 32; do xz -dc build-parts/tilec-p$n.xz > /tmp/tilec-p$n && chmod +x /tmp/tilec-p$n; done
for n in 16 8 32; do
  /usr/bin/time -f "parts=$n %e s wall, %U s user, %P cpu, %M KB" /tmp/tilec-p$n --arch=sm_90a -DT=bf16 \
      --emit=ptx -o /tmp/m$n.ptx examples/torch/mlp.tile
  echo "parts=$n ptx $(wc -c < /tmp/m$n.ptx) bytes, $(grep -c '^\.visible \.entry' /tmp/m$n.ptx) entries"
done
