#include "ember/core/storage.h"

#include "ember/core/backend.h"

namespace ember {

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  allocator_ = &checked_backend_for(device).allocator();
  data_ = allocator_->allocate(nbytes, device);
}

Storage::Storage(void* external, size_t nbytes, Device device, std::function<void(void*)> deleter)
    : data_(external), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (allocator_ && data_) allocator_->deallocate(data_, nbytes_, device_);
  if (deleter_) deleter_(data_);
}

}  // namespace ember
