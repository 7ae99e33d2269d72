// Ember::distributed through the installed package: a program that is one process when started
// alone, and one rank of a world under mpirun. Exit code 0 means the package links and the
// world answers.
#include <cstdio>

#include <ember/ember.h>
#include <ember/nn/parallel/parallel.h>

int main() {
  using namespace ember;
  nn::parallel::ProcessGroup& world = nn::parallel::ProcessGroup::world();
  Tensor one = tensor({1.0});
  world.all_reduce(one);
  if (one.item<float>() != static_cast<float>(world.world_size())) return 1;
  std::printf("Ember::distributed: rank %d of %d\n", world.rank(), world.world_size());
  return 0;
}
