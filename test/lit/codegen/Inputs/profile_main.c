/* profile.onnxtxt's program: counts each node's marks. */
#include "m.h"

#include <stdio.h>

static int marks[m_PROFILE_NODES + 1];

void m_profile_mark(int node) { ++marks[node]; }

int main(void) {
  float x[2] = {1, 2}, y[2];
  static unsigned char arena[m_ARENA_SIZE + 1];
  m_run(x, y, arena);
  printf("%s %d, %s %d, end %d, y %g\n", m_profile_nodes[0], marks[0], m_profile_nodes[1],
         marks[1], marks[2], y[1]);
  return 0;
}
