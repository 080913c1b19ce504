/* nn: Rodinia nn's euclid kernel (seed 004, Table 2, "NN"): the Euclidean distance of
 * each of 4,000 records' latitude and longitude to a target point, single precision,
 * the k-nearest-neighbours search's first step (Rodinia's host then picks the nearest).
 * A thread a record: two loads of stride 2 words, two subtractions, two products, a
 * sum and `fsqrt.s`; no branches. 4,000 records: the last warp is partial. The host
 * checks every distance against its reference. */
#include "../program.h"

#define RECORDS 4000

struct latlong {
  float lat, lng;
};

static struct latlong locations[RECORDS];
static float distances[RECORDS], ref[RECORDS];
static float target_lat, target_lng;

static void euclid(void)
{
  unsigned i = tidx();
  float dlat = target_lat - locations[i].lat;
  float dlng = target_lng - locations[i].lng;
  distances[i] = fsqrt(dlat * dlat + dlng * dlng);
}

int main(void)
{
  /* Hurricane-like positions: latitude 7..49, longitude 0..359, in 1/64 degrees. */
  for (unsigned i = 0; i < RECORDS; i++) {
    locations[i].lat = 7.0f + (float)(lcg() % (42 * 64)) * 0.015625f;
    locations[i].lng = (float)(lcg() % (360 * 64)) * 0.015625f;
  }
  target_lat = 30.0f;
  target_lng = 90.0f;
  poison(distances, sizeof distances);
  launch(RECORDS, euclid);
  for (unsigned i = 0; i < RECORDS; i++) {
    float dlat = target_lat - locations[i].lat;
    float dlng = target_lng - locations[i].lng;
    ref[i] = fsqrt(dlat * dlat + dlng * dlng);
  }
  return mismatch(distances, ref, RECORDS, 4);
}
