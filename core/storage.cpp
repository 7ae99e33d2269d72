#include "ember/core/storage.h"

#include "ember/core/error.h"
#include "ember/extend/backend.h"

namespace ember {
namespace {
std::atomic<size_t> g_allocation_limit{0};
}  // namespace

void set_allocation_limit(size_t bytes) { g_allocation_limit.store(bytes, std::memory_order_relaxed); }
size_t allocation_limit() { return g_allocation_limit.load(std::memory_order_relaxed); }

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  allocator_ = &checked_backend_for(device).allocator();
  const size_t limit = allocation_limit();
  if (limit != 0 && nbytes > limit)
    raise<OutOfMemoryError>("allocation of ", nbytes, " bytes on ", device.str(), " exceeds the limit of ",
                            limit, " bytes set by set_allocation_limit");
  data_ = allocator_->allocate(nbytes, device);
}

Storage::Storage(void* external, size_t nbytes, Device device, std::function<void(void*)> deleter)
    : data_(external), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (allocator_ && data_) allocator_->deallocate(data_, nbytes_, device_);
  if (deleter_) deleter_(data_);
}

}  // namespace ember
