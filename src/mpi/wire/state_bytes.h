// A rank's state for a checkpoint, as it travels between ranks (kWorkerState, kResumeState):
// CBOR bytes, the checkpoint file's own encoding (checkpoint/checkpoint_file.h), so that
// model-sized arrays stay byte strings. What comes from another rank is not trusted: bytes that
// are not one CBOR value holding an object, or whose text is not UTF-8, are refused with a
// MessageError naming the sender. Whether the object's fields fit the run is the restoring part's
// to judge (checkpoint::CheckpointError).
#pragma once

#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::mpi {

std::vector<char> encode_state(const nlohmann::json& state);
nlohmann::json decode_state(std::span<const char> bytes, int sender);

}  // namespace hetps::mpi
