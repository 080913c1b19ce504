/* bfs: breadth-first search of a directed graph, level by level (seed 000, Table 2,
 * "Breadth-first search", from Parboil on FG-SIMT; the kernels follow Rodinia's two).
 * A launch of `bfs_expand` has one thread a node: a node of the frontier writes the
 * next level's cost into its unvisited neighbours (threads may write the same value
 * to the same node; the kernel does not care which lands last); `bfs_update` then
 * turns the nodes it reached into the next frontier. Threads diverge on the frontier
 * flag and on the neighbour loop's data-dependent trip count, and most of each launch
 * is idle. 2,000 nodes: the last warp is partial; the source is the last node. */
#include "program.h"

#define NODES 2000
#define MAX_EDGES (NODES * 6)

static unsigned row[NODES + 1], col[MAX_EDGES];
static int cost[NODES], ref[NODES];
static unsigned char frontier[NODES], reached[NODES], visited[NODES];
static unsigned queue[NODES];
static volatile unsigned more;

static void bfs_expand(void)
{
  unsigned v = tidx();
  if (!frontier[v])
    return;
  frontier[v] = 0;
  int next = cost[v] + 1;
  for (unsigned e = row[v]; e < row[v + 1]; e++) {
    unsigned w = col[e];
    if (!visited[w]) {
      cost[w] = next;
      reached[w] = 1;
    }
  }
}

static void bfs_update(void)
{
  unsigned v = tidx();
  if (!reached[v])
    return;
  frontier[v] = 1;
  visited[v] = 1;
  reached[v] = 0;
  more = 1;
}

/* The reference: a queue, one node at a time. */
static void reference(unsigned source)
{
  for (unsigned v = 0; v < NODES; v++)
    ref[v] = -1;
  unsigned head = 0, tail = 0;
  ref[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    unsigned v = queue[head++];
    for (unsigned e = row[v]; e < row[v + 1]; e++)
      if (ref[col[e]] < 0) {
        ref[col[e]] = ref[v] + 1;
        queue[tail++] = col[e];
      }
  }
}

int main(void)
{
  /* Out-degrees 1 to 6 (3.5 on average), random targets. */
  for (unsigned v = 0; v < NODES; v++) {
    row[v + 1] = row[v] + 1 + lcg() % 6;
    for (unsigned e = row[v]; e < row[v + 1]; e++)
      col[e] = lcg() % NODES;
  }
  unsigned source = NODES - 1;
  for (unsigned v = 0; v < NODES; v++)
    cost[v] = -1;
  cost[source] = 0;
  frontier[source] = visited[source] = 1;
  do {
    more = 0;
    launch(NODES, bfs_expand);
    launch(NODES, bfs_update);
  } while (more);
  reference(source);
  return mismatch(cost, ref, NODES, 4);
}
