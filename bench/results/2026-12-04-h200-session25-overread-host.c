/* Does compute-sanitizer memcheck report a 16-byte aligned load that
 * reaches past the requested size of an allocation (but not past the
 * 16-byte chunk holding its last byte)? */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorString(r_, &s); \
    printf("%s: %s\n", #x, s); exit(1); } } while (0)
int main(int argc, char **argv) {
    size_t size = (size_t)atoi(argv[1]), off = (size_t)atoi(argv[2]);
    CUdevice d; CUcontext c; CUmodule m; CUfunction f; CUdeviceptr buf, out;
    CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuCtxCreate(&c, NULL, 0, d));
    CK(cuModuleLoad(&m, argv[3])); CK(cuModuleGetFunction(&f, m, "over"));
    CK(cuMemAlloc(&buf, size)); CK(cuMemAlloc(&out, 4));
    CK(cuMemsetD8(buf, 1, size));
    CUdeviceptr p = buf + off;
    void *args[] = {&p, &out};
    CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL));
    CK(cuCtxSynchronize());
    unsigned v; CK(cuMemcpyDtoH(&v, out, 4));
    printf("size %zu, load of 16 bytes at offset %zu: ok, sum %u\n", size, off, v);
    return 0;
}
