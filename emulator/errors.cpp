// The emulated runtime's errors: the last error of a thread, the sticky error of a device,
// and their names and messages (NVIDIA's), with the emulator's diagnosis appended where it
// made one.
#include <string>

#include "cuda_emulator/internal.h"

using namespace ember::emulation;

cudaError_t cudaGetLastError() {
  Lock lock(state().mutex);
  const cudaError_t e = last_error();
  last_error() = cudaSuccess;
  if (valid_device(current_device()) &&
      state().devices[static_cast<size_t>(current_device())].sticky != cudaSuccess)
    return state().devices[static_cast<size_t>(current_device())].sticky;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  Lock lock(state().mutex);
  if (valid_device(current_device()) &&
      state().devices[static_cast<size_t>(current_device())].sticky != cudaSuccess)
    return state().devices[static_cast<size_t>(current_device())].sticky;
  return last_error();
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError:
      return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver:
      return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress:
      return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources:
      return "cudaErrorLaunchOutOfResources";
    case cudaErrorPeerAccessAlreadyEnabled:
      return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorPeerAccessNotEnabled:
      return "cudaErrorPeerAccessNotEnabled";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported:
      return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const char* text = "unrecognized error code";
  switch (error) {
    case cudaSuccess:
      text = "no error";
      break;
    case cudaErrorInvalidValue:
      text = "invalid argument";
      break;
    case cudaErrorMemoryAllocation:
      text = "out of memory";
      break;
    case cudaErrorInitializationError:
      text = "initialization error";
      break;
    case cudaErrorInvalidConfiguration:
      text = "invalid configuration argument";
      break;
    case cudaErrorInvalidMemcpyDirection:
      text = "invalid copy direction for memcpy";
      break;
    case cudaErrorInsufficientDriver:
      text = "CUDA driver version is insufficient for CUDA runtime version";
      break;
    case cudaErrorNoDevice:
      text = "no CUDA-capable device is detected";
      break;
    case cudaErrorInvalidDevice:
      text = "invalid device ordinal";
      break;
    case cudaErrorInvalidResourceHandle:
      text = "invalid resource handle";
      break;
    case cudaErrorIllegalAddress:
      text = "an illegal memory access was encountered";
      break;
    case cudaErrorLaunchOutOfResources:
      text = "too many resources requested for launch";
      break;
    case cudaErrorPeerAccessAlreadyEnabled:
      text = "peer access is already enabled";
      break;
    case cudaErrorPeerAccessNotEnabled:
      text = "peer access has not been enabled";
      break;
    case cudaErrorLaunchFailure:
      text = "unspecified launch failure";
      break;
    case cudaErrorNotSupported:
      text = "operation not supported";
      break;
  }
  // Errors the emulator diagnosed carry the diagnosis: "(emulated: ...)". The text lives in
  // a per-thread buffer until this thread's next call.
  const bool diagnosed = error == cudaErrorIllegalAddress || error == cudaErrorLaunchFailure ||
                         error == cudaErrorInvalidConfiguration || error == cudaErrorInvalidResourceHandle ||
                         (error == cudaErrorInitializationError && !state().config_error.empty());
  if (!diagnosed) return text;
  static thread_local std::string message;
  Lock lock(state().mutex);
  const std::string why = error == cudaErrorInitializationError ? state().config_error : state().last_fault;
  message = why.empty() ? text : std::string(text) + " (emulated: " + why + ")";
  return message.c_str();
}
