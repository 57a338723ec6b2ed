/* One epoch of scikit-learn's MLPClassifier (ReLU, logistic output, Adam) for one network, float32.

   Compiled on first use by modelcompare/_foundation/mlp/native.py and called through ctypes; see that module
   for the layout of the arguments. The arithmetic follows scikit-learn's _backprop and
   AdamOptimizer step by step (bias added after the product, unnormalised output delta, gradients
   (A^T D + alpha W) / |b|, Adam with eps added to the uncorrected sqrt(v)); only the summation order
   inside the products differs from scikit-learn's BLAS.

   Every matrix product goes through gemm(), whose per-element arithmetic (one fused multiply-add
   per k, in order) does not depend on the tiling, the row count or the alignment, so a network's
   result does not depend on which other networks are trained alongside it. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VW 8 /* floats per vector; every row width is padded to a multiple of VW */

typedef float v8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef int32_t v8i __attribute__((vector_size(32), aligned(4), may_alias));

static inline v8 ld(const float *p) { return *(const v8 *)p; }
static inline void st(float *p, v8 x) { *(v8 *)p = x; }
static inline v8 bc(float a) { return (v8){a, a, a, a, a, a, a, a}; }
static inline v8 keep_positive(v8 x, v8 m) { return (v8)((v8i)x & (m > bc(0.0f))); }

enum { PLAIN = 0, BIAS_RELU = 1, MASK = 2 };

/* C[i, :] = epilogue(sum_k A[i*ars + k*aks] * B[k*ldb + :]) on an RB x (VB*VW) tile.
   BIAS_RELU: max(acc + bias, 0) (bias added after the product, as scikit-learn does);
   MASK: acc where M > 0, else 0 (the ReLU derivative). */
#define TILE(RB, VB)                                                                               \
    static void tile_##RB##_##VB(int K, const float *A, long ars, long aks, const float *B,         \
                                 long ldb, float *C, long ldc, int mode, const float *bias,         \
                                 const float *M, long ldm) {                                        \
        v8 acc[RB][VB];                                                                             \
        for (int i = 0; i < RB; i++)                                                                \
            for (int v = 0; v < VB; v++) acc[i][v] = bc(0.0f);                                     \
        for (int k = 0; k < K; k++) {                                                               \
            v8 b[VB];                                                                               \
            for (int v = 0; v < VB; v++) b[v] = ld(B + k * ldb + v * VW);                           \
            for (int i = 0; i < RB; i++) {                                                          \
                v8 a = bc(A[i * ars + k * aks]);                                                    \
                for (int v = 0; v < VB; v++) acc[i][v] += a * b[v];                                 \
            }                                                                                       \
        }                                                                                           \
        for (int i = 0; i < RB; i++)                                                                \
            for (int v = 0; v < VB; v++) {                                                          \
                v8 x = acc[i][v];                                                                   \
                if (mode == BIAS_RELU) {                                                            \
                    x = x + ld(bias + v * VW);                                                      \
                    x = keep_positive(x, x);                                                        \
                } else if (mode == MASK) {                                                          \
                    x = keep_positive(x, ld(M + i * ldm + v * VW));                                 \
                }                                                                                   \
                st(C + i * ldc + v * VW, x);                                                        \
            }                                                                                       \
    }

/* With AVX-512VL there are 32 vector registers: 8 x 3 accumulators fit; with AVX2, 4 x 3. */
#if defined(__AVX512VL__)
#define RB_MAX 8
TILE(8, 3)
TILE(8, 2)
TILE(8, 1)
#else
#define RB_MAX 4
#endif
TILE(4, 3)
TILE(4, 2)
TILE(4, 1)
TILE(1, 3)
TILE(1, 2)
TILE(1, 1)

typedef void (*tile_fn)(int, const float *, long, long, const float *, long, float *, long, int,
                        const float *, const float *, long);

/* C (R x N) = epilogue(A (R x K, strides ars/aks) @ B (K x N, row stride ldb)); N % VW == 0.
   Column chunks of 3 vectors (2 + 2 rather than 3 + 1 for the last four: a lone vector leaves the
   FMA pipes waiting on latency); row blocks of RB_MAX, then 4, then single rows. */
static void gemm(int R, int K, int N, const float *A, long ars, long aks, const float *B, long ldb,
                 float *C, long ldc, int mode, const float *bias, const float *M, long ldm) {
#if RB_MAX == 8
    static const tile_fn big[4] = {0, tile_8_1, tile_8_2, tile_8_3};
#endif
    static const tile_fn four[4] = {0, tile_4_1, tile_4_2, tile_4_3};
    static const tile_fn one[4] = {0, tile_1_1, tile_1_2, tile_1_3};
    int nv = N / VW;
    for (int v0 = 0; v0 < nv;) {
        int rem = nv - v0, vb = rem >= 5 ? 3 : (rem == 4 ? 2 : rem);
        long c0 = (long)v0 * VW;
        const float *bb = bias ? bias + c0 : 0;
        int i = 0;
#if RB_MAX == 8
        for (; i + 8 <= R; i += 8)
            big[vb](K, A + i * ars, ars, aks, B + c0, ldb, C + i * ldc + c0, ldc, mode, bb,
                    M ? M + i * ldm + c0 : 0, ldm);
#endif
        for (; i + 4 <= R; i += 4)
            four[vb](K, A + i * ars, ars, aks, B + c0, ldb, C + i * ldc + c0, ldc, mode, bb,
                     M ? M + i * ldm + c0 : 0, ldm);
        for (; i < R; i++)
            one[vb](K, A + i * ars, ars, aks, B + c0, ldb, C + i * ldc + c0, ldc, mode, bb,
                    M ? M + i * ldm + c0 : 0, ldm);
        v0 += vb;
    }
}

/* scikit-learn's Adam step on n floats (eps added to the uncorrected sqrt(v)); restrict lets the
   compiler vectorise it. */
static void adam(long n, float *restrict theta, float *restrict m, float *restrict v,
                 const float *restrict grad, float b1, float c1, float b2, float c2, float lr_t,
                 float eps) {
    for (long i = 0; i < n; i++) {
        float g = grad[i];
        m[i] = b1 * m[i] + c1 * g;
        v[i] = b2 * v[i] + c2 * (g * g);
        theta[i] += (-lr_t * m[i]) / (sqrtf(v[i]) + eps);
    }
}

static inline long pad(long n) { return (n + VW - 1) / VW * VW; }

/* Flat padded parameter layout (the Python side builds the same one):
   for each hidden layer l = 0..L-2: W_l (s_l x P_{l+1}) then b_l (P_{l+1});
   then the output layer: w (P_{L-1}) then b (VW floats, only the first used). P = pad(s). */
long mc_param_size(int n_layers, const int *sizes) {
    long size = 0;
    for (int l = 0; l + 1 < n_layers; l++) size += (sizes[l] + 1) * pad(sizes[l + 1]);
    return size + pad(sizes[n_layers - 1]) + VW;
}

static void *zalloc(long n_floats) {
    size_t bytes = (size_t)((n_floats + 16) * sizeof(float) + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

#define MAX_LAYERS 64
/* The bias gradients (column sums over the minibatch rows) run row by row into ACC vector
   accumulators at a time: independent chains instead of one long dependent one, and each element
   still sums its rows in order, so the result is the same. */
#define ACC 8

/* One epoch: minibatches of `batch` rows in the order `order` (n indices into X), forward,
   loss, backward and one Adam step each. theta/m/v are updated in place; t0 is the number of Adam
   steps taken before this epoch. Writes the epoch's training loss (scikit-learn's
   loss_curve_ entry) to *loss_out; with loss_out NULL the loss is not computed (the weights are
   the same: the gradients do not use it). Returns 0, or -1 when out of memory or the net is too
   deep. */
int mc_mlp_epoch(const float *X, const float *y, long n, int d, const int64_t *order, int n_layers,
                 const int *sizes, float *theta, float *m, float *v, long t0, int batch,
                 const double *hyper, double *loss_out) {
    /* hyper = (alpha, learning rate, beta1, beta2, eps); scikit-learn mixes Python floats into
       float32 arrays, so each constant is rounded to float32 once, as numpy does */
    const double lr = hyper[1], beta1 = hyper[2], beta2 = hyper[3];
    const float alpha = (float)hyper[0], b1 = (float)beta1, c1 = (float)(1.0 - beta1);
    const float b2 = (float)beta2, c2 = (float)(1.0 - beta2), eps = (float)hyper[4];
    if (n_layers < 1 || n_layers > MAX_LAYERS || sizes[0] != d || sizes[n_layers] != 1) return -1;
    const int L = n_layers; /* weight layers, the last one is the output unit */
    const int want_loss = loss_out != 0;
    long P[MAX_LAYERS + 1];
    for (int l = 0; l <= L; l++) P[l] = pad(sizes[l]);
    long n_par = mc_param_size(L, sizes);

    /* parameter views (offsets into theta, grad) */
    long w_off[MAX_LAYERS], b_off[MAX_LAYERS], off = 0;
    for (int l = 0; l + 1 < L; l++) {
        w_off[l] = off;
        off += sizes[l] * P[l + 1];
        b_off[l] = off;
        off += P[l + 1];
    }
    long wo_off = off, bo_off = off + P[L - 1];

    /* workspace: gathered rows, activations and deltas per hidden layer, transposed weights */
    long rows_x = (long)batch * pad(d), ws = rows_x + 3L * batch + n_par;
    for (int l = 1; l < L; l++) ws += 2L * batch * P[l];
    for (int l = 1; l + 1 < L; l++) ws += (long)sizes[l + 1] * P[l];
    float *work = zalloc(ws);
    if (!work) return -1;
    float *xb = work, *z = xb + rows_x, *yb = z + batch, *dout = yb + batch, *grad = dout + batch;
    float *act[MAX_LAYERS + 1], *del[MAX_LAYERS + 1], *wt[MAX_LAYERS];
    float *q = grad + n_par;
    act[0] = xb;
    for (int l = 1; l < L; l++) {
        act[l] = q;
        q += (long)batch * P[l];
        del[l] = q;
        q += (long)batch * P[l];
    }
    for (int l = 1; l + 1 < L; l++) {
        wt[l] = q; /* W_l^T: sizes[l+1] x P[l], zero padding columns */
        q += (long)sizes[l + 1] * P[l];
    }

    double total = 0.0;
    long t = t0;
    for (long start = 0; start < n; start += batch) {
        int R = (int)(n - start < batch ? n - start : batch);
        /* gather the minibatch (row stride d: layer 0 reads only d columns) */
        for (int r = 0; r < R; r++) {
            int64_t src = order[start + r];
            memcpy(xb + (long)r * d, X + src * d, sizeof(float) * d);
            yb[r] = y[src];
        }
        for (int l = 1; l + 1 < L; l++) { /* refresh W_l^T for the backward pass */
            const float *w = theta + w_off[l];
            float *dst = wt[l];
            for (int j = 0; j < sizes[l + 1]; j++)
                for (int k = 0; k < sizes[l]; k++) dst[(long)j * P[l] + k] = w[(long)k * P[l + 1] + j];
        }

        /* forward: hidden layers, then the output unit */
        for (int l = 0; l + 1 < L; l++) {
            long lda = l == 0 ? d : P[l];
            gemm(R, sizes[l], (int)P[l + 1], act[l], lda, 1, theta + w_off[l], P[l + 1], act[l + 1],
                 P[l + 1], BIAS_RELU, theta + b_off[l], 0, 0);
        }
        const float *a_last = act[L - 1];
        long ld_last = L == 1 ? d : P[L - 1], k_last = L == 1 ? d : P[L - 1];
        const float *wo = theta + wo_off;
        float bo = theta[bo_off];
        double bce = 0.0;
        const float p_lo = 1.1920928955078125e-07f, p_hi = 1.0f - 1.1920928955078125e-07f;
        for (int r = 0; r < R; r++) {
            const float *a = a_last + (long)r * ld_last;
            float s = 0.0f;
            if (k_last % VW == 0) {
                v8 acc = bc(0.0f);
                for (long k = 0; k < k_last; k += VW) acc += ld(a + k) * ld(wo + k);
                s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
            } else {
                for (long k = 0; k < k_last; k++) s += a[k] * wo[k];
            }
            z[r] = s + bo;
            float p = 1.0f / (1.0f + expf(-z[r]));
            if (want_loss) {
                float pc = p < p_lo ? p_lo : (p > p_hi ? p_hi : p);
                bce -= (double)logf(yb[r] > 0.5f ? pc : 1.0f - pc); /* float32, as scikit-learn */
            }
            dout[r] = p - yb[r];
        }
        if (want_loss) {
            double sq = 0.0;
            for (int l = 0; l + 1 < L; l++) {
                const float *w = theta + w_off[l];
                for (long i = 0; i < sizes[l] * P[l + 1]; i++) sq += (double)w[i] * w[i];
            }
            for (long k = 0; k < P[L - 1]; k++) sq += (double)wo[k] * wo[k];
            total += bce + 0.5 * alpha * sq; /* (mean BCE + alpha/2 ||W||^2 / |b|) * |b| */
        }

        /* backward: output unit */
        memset(grad, 0, sizeof(float) * n_par);
        const float rows = (float)R; /* gradients are divided by |b|, as scikit-learn does */
        {
            float *gw = grad + wo_off;
            for (long k = 0; k < k_last; k += (k_last % VW == 0 ? VW : 1)) {
                if (k_last % VW == 0) {
                    v8 acc = bc(0.0f);
                    for (int r = 0; r < R; r++) acc += bc(dout[r]) * ld(a_last + (long)r * ld_last + k);
                    st(gw + k, (acc + bc(alpha) * ld(wo + k)) / bc(rows));
                } else {
                    float acc = 0.0f;
                    for (int r = 0; r < R; r++) acc += dout[r] * a_last[(long)r * ld_last + k];
                    gw[k] = (acc + alpha * wo[k]) / rows;
                }
            }
            float sb = 0.0f;
            for (int r = 0; r < R; r++) sb += dout[r];
            grad[bo_off] = sb / rows;
        }
        if (L > 1) { /* delta of the last hidden layer: dout * w, where the activation is > 0 */
            float *dl = del[L - 1];
            for (int r = 0; r < R; r++)
                for (long k = 0; k < P[L - 1]; k += VW) {
                    v8 x = bc(dout[r]) * ld(wo + k);
                    st(dl + (long)r * P[L - 1] + k, keep_positive(x, ld(a_last + (long)r * P[L - 1] + k)));
                }
        }
        /* backward: hidden layers, from the top */
        for (int l = L - 2; l >= 0; l--) {
            long lda = l == 0 ? d : P[l], N = P[l + 1];
            const float *dn = del[l + 1];
            float *gw = grad + w_off[l], *gb = grad + b_off[l];
            const float *w = theta + w_off[l];
            gemm(sizes[l], R, (int)N, act[l], 1, lda, dn, N, gw, N, PLAIN, 0, 0, 0); /* A^T D */
            for (long i = 0; i < sizes[l] * N; i += VW)
                st(gw + i, (ld(gw + i) + bc(alpha) * ld(w + i)) / bc(rows));
            for (long j0 = 0; j0 < N; j0 += ACC * VW) {
                int nv = (int)((N - j0) / VW < ACC ? (N - j0) / VW : ACC);
                v8 acc[ACC];
                for (int u = 0; u < nv; u++) acc[u] = bc(0.0f);
                for (int r = 0; r < R; r++)
                    for (int u = 0; u < nv; u++) acc[u] += ld(dn + (long)r * N + j0 + u * VW);
                for (int u = 0; u < nv; u++) st(gb + j0 + u * VW, acc[u] / bc(rows));
            }
            if (l > 0) /* D_l = (D_{l+1} W_l^T) where A_l > 0 */
                gemm(R, sizes[l + 1], (int)P[l], dn, N, 1, wt[l], P[l], del[l], P[l], MASK, 0,
                     act[l], P[l]);
        }

        /* Adam, scikit-learn's form: eps added to the uncorrected sqrt(v) */
        t += 1;
        float lr_t = (float)(lr * sqrt(1.0 - pow(beta2, (double)t)) / (1.0 - pow(beta1, (double)t)));
        adam(n_par, theta, m, v, grad, b1, c1, b2, c2, lr_t, eps);
    }
    if (want_loss) *loss_out = total / (double)n;
    free(work);
    return 0;
}

/* Logits of one network on n rows of X (row stride d), in blocks of LOGIT_BLOCK rows: the forward
   pass of mc_mlp_epoch (same products, same output-unit sum), without loss or gradients. Used for
   the early-stopping validation score and for predictions. Returns 0, or -1 when out of memory or
   the net is too deep. */
#define LOGIT_BLOCK 256
int mc_mlp_logits(const float *X, long n, int d, int n_layers, const int *sizes,
                  const float *theta, float *out) {
    if (n_layers < 1 || n_layers > MAX_LAYERS || sizes[0] != d || sizes[n_layers] != 1) return -1;
    const int L = n_layers;
    long P[MAX_LAYERS + 1];
    for (int l = 0; l <= L; l++) P[l] = pad(sizes[l]);
    long w_off[MAX_LAYERS], b_off[MAX_LAYERS], off = 0;
    for (int l = 0; l + 1 < L; l++) {
        w_off[l] = off;
        off += sizes[l] * P[l + 1];
        b_off[l] = off;
        off += P[l + 1];
    }
    long wo_off = off, bo_off = off + P[L - 1];
    long ws = 0;
    for (int l = 1; l < L; l++) ws += (long)LOGIT_BLOCK * P[l];
    float *work = zalloc(ws > 0 ? ws : 1);
    if (!work) return -1;
    float *act[MAX_LAYERS + 1];
    float *q = work;
    for (int l = 1; l < L; l++) {
        act[l] = q;
        q += (long)LOGIT_BLOCK * P[l];
    }
    const float *wo = theta + wo_off;
    const float bo = theta[bo_off];
    for (long start = 0; start < n; start += LOGIT_BLOCK) {
        int R = (int)(n - start < LOGIT_BLOCK ? n - start : LOGIT_BLOCK);
        act[0] = (float *)(X + start * d);
        for (int l = 0; l + 1 < L; l++) {
            long lda = l == 0 ? d : P[l];
            gemm(R, sizes[l], (int)P[l + 1], act[l], lda, 1, theta + w_off[l], P[l + 1], act[l + 1],
                 P[l + 1], BIAS_RELU, theta + b_off[l], 0, 0);
        }
        const float *a_last = act[L - 1];
        long ld_last = L == 1 ? d : P[L - 1], k_last = L == 1 ? d : P[L - 1];
        for (int r = 0; r < R; r++) {
            const float *a = a_last + (long)r * ld_last;
            float s = 0.0f;
            if (k_last % VW == 0) {
                v8 acc = bc(0.0f);
                for (long k = 0; k < k_last; k += VW) acc += ld(a + k) * ld(wo + k);
                s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
            } else {
                for (long k = 0; k < k_last; k++) s += a[k] * wo[k];
            }
            out[start + r] = s + bo;
        }
    }
    free(work);
    return 0;
}
