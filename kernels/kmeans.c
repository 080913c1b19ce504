/* kmeans: k-means clustering of 2,048 points in 4 dimensions into 8 clusters, single
 * precision, 2 iterations (seed 000, section 5: "Assignment of objects to clusters is
 * parallelized across objects. The minimum distance between an object and each cluster
 * is computed independently by each thread and an atomic memory operation updates a
 * shared data structure. Cluster centers are recomputed in parallel using one thread
 * per cluster"; Table 2, custom on FG-SIMT). `km_assign`, a thread an object: uniform
 * loops over clusters and dimensions, a data-dependent compare, amoadd.w on the
 * cluster's count and on the count of changed assignments. `km_update`, a thread a
 * cluster (8 threads: one partial warp): a uniform loop over the objects, summing its
 * members. The host checks every iteration against its reference. */
#include "program.h"

#define OBJECTS 2048
#define CLUSTERS 8
#define ITERATIONS 2

struct point {
  float f[4];
};

static struct point objects[OBJECTS], centres[CLUSTERS], ref_centres[CLUSTERS];
static unsigned member[OBJECTS], counts[CLUSTERS], changed;
static unsigned ref_member[OBJECTS], ref_counts[CLUSTERS], ref_changed;

static void km_assign(void)
{
  unsigned i = tidx(), best = 0;
  float best_distance = __FLT_MAX__;
  for (unsigned c = 0; c < CLUSTERS; c++) {
    float distance = 0.0f;
    for (unsigned f = 0; f < 4; f++) {
      float d = objects[i].f[f] - centres[c].f[f];
      distance += d * d;
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = c;
    }
  }
  if (member[i] != best) {
    member[i] = best;
    __atomic_fetch_add(&changed, 1, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&counts[best], 1, __ATOMIC_RELAXED);
}

static void km_update(void)
{
  unsigned c = tidx();
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  for (unsigned i = 0; i < OBJECTS; i++)
    if (member[i] == c) {
      s0 += objects[i].f[0];
      s1 += objects[i].f[1];
      s2 += objects[i].f[2];
      s3 += objects[i].f[3];
    }
  if (counts[c] != 0) {
    float n = (float)counts[c];
    centres[c].f[0] = s0 / n;
    centres[c].f[1] = s1 / n;
    centres[c].f[2] = s2 / n;
    centres[c].f[3] = s3 / n;
  }
}

/* The reference iteration: every object, then every cluster's sums in object order. */
static void reference_iteration(void)
{
  struct point sums[CLUSTERS] = {0};
  for (unsigned i = 0; i < OBJECTS; i++) {
    unsigned best = 0;
    float best_distance = __FLT_MAX__;
    for (unsigned c = 0; c < CLUSTERS; c++) {
      float distance = 0.0f;
      for (unsigned f = 0; f < 4; f++)
        distance += (objects[i].f[f] - ref_centres[c].f[f]) *
                    (objects[i].f[f] - ref_centres[c].f[f]);
      if (distance < best_distance) {
        best_distance = distance;
        best = c;
      }
    }
    ref_changed += ref_member[i] != best;
    ref_member[i] = best;
    ref_counts[best]++;
    for (unsigned f = 0; f < 4; f++)
      sums[best].f[f] += objects[i].f[f];
  }
  for (unsigned c = 0; c < CLUSTERS; c++)
    for (unsigned f = 0; f < 4 && ref_counts[c] != 0; f++)
      ref_centres[c].f[f] = sums[c].f[f] / (float)ref_counts[c];
}

int main(void)
{
  /* Points scattered around 8 seeds; the first 8 points are the initial centres. */
  for (unsigned i = 0; i < OBJECTS; i++)
    for (unsigned f = 0; f < 4; f++)
      objects[i].f[f] = (float)((i * 5 + f * 3) % CLUSTERS * 32 + lcg() % 48) * 0.125f;
  for (unsigned c = 0; c < CLUSTERS; c++)
    centres[c] = ref_centres[c] = objects[c];
  for (unsigned i = 0; i < OBJECTS; i++)
    member[i] = ref_member[i] = CLUSTERS;
  for (unsigned it = 0; it < ITERATIONS; it++) {
    for (unsigned c = 0; c < CLUSTERS; c++)
      counts[c] = ref_counts[c] = 0;
    changed = ref_changed = 0;
    launch(OBJECTS, km_assign);
    launch(CLUSTERS, km_update);
    reference_iteration();
    int bad = mismatch(member, ref_member, OBJECTS, 4);
    bad = bad ? bad : mismatch(counts, ref_counts, CLUSTERS, 4);
    bad = bad ? bad : mismatch(centres, ref_centres, CLUSTERS, 16);
    if (bad || changed != ref_changed)
      return bad ? bad : 255;
  }
  return 0;
}
