/* vector_types.cu — every CUDA vector type has CUDA's size and alignment (vector_types.h of CUDA 13:
 * a 2-vector aligned to twice its element, a 4-vector to four times it, at most 16 bytes, the _16a
 * and _32a 4-vectors to 16 and 32), and every make_ function builds one, in host and device code.
 * The deprecated 4-vectors of 8-byte elements (double4 ...) warn when compiled, with nvcc 13 as here.
 *   lib/sim/tools/simcc -o vector_types tests/sim/programs/vector_types.cu && ./vector_types
 *   nvcc -o vector_types tests/sim/programs/vector_types.cu && ./vector_types      (on a GPU) */
#include <cstdio>

struct expectation { const char *name; size_t size, align, got_size, got_align; };

#define EXPECT(type, size, align) {#type, size, align, sizeof(type), alignof(type)}
#define EXPECT_FAMILY(name, e)                                                         \
    EXPECT(name##1, e, e), EXPECT(name##2, 2 * e, 2 * e), EXPECT(name##3, 3 * e, e), \
    EXPECT(name##4, 4 * e, 4 * e > 16 ? 16 : 4 * e)

static const expectation expected[] = {
    EXPECT_FAMILY(char, 1),      EXPECT_FAMILY(uchar, 1),    EXPECT_FAMILY(short, 2),
    EXPECT_FAMILY(ushort, 2),    EXPECT_FAMILY(int, 4),      EXPECT_FAMILY(uint, 4),
    EXPECT_FAMILY(float, 4),     EXPECT_FAMILY(long, 8),     EXPECT_FAMILY(ulong, 8),
    EXPECT_FAMILY(longlong, 8),  EXPECT_FAMILY(ulonglong, 8), EXPECT_FAMILY(double, 8),
    EXPECT(long4_16a, 32, 16),   EXPECT(long4_32a, 32, 32),   EXPECT(ulong4_16a, 32, 16),
    EXPECT(ulong4_32a, 32, 32),  EXPECT(longlong4_16a, 32, 16), EXPECT(longlong4_32a, 32, 32),
    EXPECT(ulonglong4_16a, 32, 16), EXPECT(ulonglong4_32a, 32, 32), EXPECT(double4_16a, 32, 16),
    EXPECT(double4_32a, 32, 32),
};

/* One value of each family, built with make_ on the device: the sum of all its fields. */
__device__ __host__ double field_sums(int i)
{
    char4 c = make_char4(i, 1, 2, 3);
    uchar3 uc = make_uchar3(i, 4, 5);
    short2 s = make_short2(i, -6);
    ushort4 us = make_ushort4(i, 7, 8, 9);
    int1 n = make_int1(i);
    uint4 u = make_uint4(i, 10, 11, 12);
    float3 f = make_float3(i, 0.5f, 0.25f);
    long2 l = make_long2(i, -13);
    ulong3 ul = make_ulong3(i, 14, 15);
    longlong4_16a ll = make_longlong4_16a(i, 16, 17, 18);
    ulonglong2 ull = make_ulonglong2(i, 19);
    double4_32a d = make_double4_32a(i, 0.125, 20, 21);
    double1 d1 = make_double1(i);
    return c.x + c.y + c.z + c.w + uc.x + uc.y + uc.z + s.x + s.y + us.x + us.y + us.z + us.w + n.x + u.x + u.y + u.z +
           u.w + f.x + f.y + f.z + l.x + l.y + ul.x + ul.y + ul.z + ll.x + ll.y + ll.z + ll.w + ull.x + ull.y + d.x +
           d.y + d.z + d.w + d1.x;
}

__global__ void sums(double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = field_sums(i);
}

int main(void)
{
    int count = sizeof expected / sizeof expected[0], right = 0;
    for (int i = 0; i < count; i++) {
        const expectation *e = &expected[i];
        if (e->size == e->got_size && e->align == e->got_align) right++;
        else printf("%s: %zu bytes aligned to %zu, CUDA has %zu aligned to %zu\n", e->name, e->got_size,
                    e->got_align, e->size, e->align);
    }
    const int n = 64;
    double *device, host[n];
    if (cudaMalloc(&device, sizeof host) != cudaSuccess) return 1;
    sums<<<2, 32>>>(device, n);
    if (cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    int built = 0;
    for (int i = 0; i < n; i++) built += host[i] == field_sums(i) && host[i] == 13 * i + 193.875;
    printf("%d of %d vector types have CUDA's size and alignment; make_ built %d of %d values on the device\n", right,
           count, built, n);
    cudaFree(device);
    return right != count || built != n;
}
