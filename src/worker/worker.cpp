#include "worker/worker.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "data/share_cut.h"

namespace hetps::worker {

Worker::Worker(int id, model::Learner& learner, const data::Dataset& train,
               std::shared_ptr<const Partition> partition, uint64_t seed,
               const WorkerOptions& options)
    : id_(id),
      learner_(learner),
      train_(train),
      partition_(std::move(partition)),
      seed_(seed),
      sampler_(partition_->at(static_cast<size_t>(id)), seed, id),
      options_(options),
      batch_inputs_(static_cast<size_t>(options.batch_size * train.sample_floats())),
      batch_labels_(static_cast<size_t>(options.batch_size)) {}

double Worker::step(std::span<const float> params, std::span<float> grad) {
  sampler_.next_batch(train_, options_.batch_size, batch_inputs_.data(), batch_labels_.data());
  model::Batch batch{batch_inputs_.data(), batch_labels_.data(), options_.batch_size};
  return learner_.gradient(params, batch, grad);
}

RoundResult Worker::run(const protocol::WorkerPlan& plan, std::span<const float> pulled, double lr,
                        std::span<float> update) {
  if (!plan.data_shares.empty() && plan.data_shares != data_shares_) {
    sampler_ = data::BatchSampler(
        data::cut_to_shares(*partition_, plan.data_shares).at(static_cast<size_t>(id_)), seed_,
        id_);
    data_shares_ = plan.data_shares;
  }
  if (plan.kind == protocol::UpdateKind::Delta) {
    RoundResult result = run_local_steps(plan, pulled, lr, update);
    // A dense round after compressed ones goes through error feedback too, which then sends
    // everything it held back: nothing top-k dropped is lost.
    if (!plan.error_feedback) feedback_.reset();
    if (plan.keep_ratio != 1.0 || feedback_) {
      SparseDelta sent = compress(update, plan.keep_ratio, plan.error_feedback);
      // The sparse form costs 8 bytes an entry, the dense one 4: above half the entries the
      // dense layout (the kept entries, zeros elsewhere) is the smaller message, with the same
      // contents, so it travels dense.
      const auto dense_bytes = static_cast<int64_t>(update.size() * sizeof(float));
      if (plan.keep_ratio != 1.0 && sent.bytes() < dense_bytes) result.sparse = std::move(sent);
    }
    return result;
  }
  if (plan.max_local_steps != 1) {
    throw std::invalid_argument("a gradient plan takes exactly one step per push");
  }
  if (plan.keep_ratio != 1.0) {
    throw std::invalid_argument(
        fmt::format("a gradient plan with keep_ratio = {}: only model deltas are top-k compressed",
                    plan.keep_ratio));
  }
  double loss = step(pulled, update);
  return RoundResult{.steps = 1, .samples = options_.batch_size, .mean_loss = loss, .sparse = {}};
}

RoundResult Worker::run_local_steps(const protocol::WorkerPlan& plan, std::span<const float> pulled,
                                    double lr, std::span<float> update) {
  if (!local_optimizer_) allocate_local_model(pulled.size());
  std::copy(pulled.begin(), pulled.end(), local_.begin());
  const float* gradient[] = {local_grad_.data()};
  const double weight[] = {1.0};
  RoundResult result;
  double loss_sum = 0;
  while (result.steps < plan.max_local_steps) {
    loss_sum += step(local_, local_grad_);
    local_optimizer_->apply_gradients(gradient, weight, lr, options_.momentum);
    ++result.steps;
    if (plan.change_threshold > 0 && relative_change(local_, pulled) > plan.change_threshold) {
      break;
    }
  }
  for (size_t i = 0; i < update.size(); ++i) update[i] = local_[i] - pulled[i];
  result.samples = int64_t{result.steps} * options_.batch_size;
  result.mean_loss = loss_sum / result.steps;
  return result;
}

void Worker::allocate_local_model(size_t floats) {
  local_.resize(floats);
  local_grad_.resize(floats);
  local_optimizer_ =
      std::make_unique<server::SgdOptimizer>(params::KeyRange{0, floats}, local_, options_.sgd);
}

SparseDelta Worker::compress(std::span<float> update, double keep_ratio, bool error_feedback) {
  if (error_feedback && !feedback_) feedback_.emplace(update.size());
  SparseDelta sent = error_feedback ? feedback_->compress(update, keep_ratio)
                                    : top_k(update, keep_ratio, top_k_scratch_);
  std::fill(update.begin(), update.end(), 0.0f);
  add_sparse(sent, update);
  return sent;
}

nlohmann::json Worker::save_state() const {
  const data::BatchSampler::State sampler = sampler_.state();
  return {{"sampler", {{"epoch", sampler.epoch}, {"position", sampler.position}}},
          {"data_shares", data_shares_},
          {"local_optimizer", local_optimizer_ ? local_optimizer_->save_state() : nullptr},
          {"error_feedback", feedback_ ? feedback_->save_state() : nullptr}};
}

void Worker::restore_state(const nlohmann::json& state) {
  checkpoint::restoring(fmt::format("worker {}", id_), [&] {
    const auto shares = state.at("data_shares").get<std::vector<double>>();
    const auto w = static_cast<size_t>(id_);
    data::BatchSampler sampler(
        shares.empty() ? partition_->at(w) : data::cut_to_shares(*partition_, shares).at(w), seed_,
        id_);
    const nlohmann::json& position = state.at("sampler");
    sampler.restore({checkpoint::integer<int64_t>(position.at("epoch")),
                     checkpoint::integer<int64_t>(position.at("position"))});

    const size_t model_floats = learner_.layout().size();
    std::optional<ErrorFeedback> feedback;
    if (!state.at("error_feedback").is_null()) {
      feedback.emplace(model_floats);
      feedback->restore_state(state.at("error_feedback"));
    }
    // Last, as it cannot be undone: a local model allocated here and then refused would only
    // be allocated ahead of its first use, with a fresh optimizer.
    const nlohmann::json& local_optimizer = state.at("local_optimizer");
    if (!local_optimizer.is_null()) {
      if (!local_optimizer_) allocate_local_model(model_floats);
      local_optimizer_->restore_state(local_optimizer);
    } else {
      local_optimizer_.reset();
      local_.clear();
      local_grad_.clear();
    }
    sampler_ = std::move(sampler);
    data_shares_ = shares;
    feedback_ = std::move(feedback);
  });
}

double relative_change(std::span<const float> a, std::span<const float> b) {
  double diff = 0;
  double norm = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    double d = static_cast<double>(a[i]) - b[i];
    diff += d * d;
    norm += static_cast<double>(b[i]) * b[i];
  }
  if (norm == 0) return diff == 0 ? 0 : std::numeric_limits<double>::infinity();
  return diff / norm;
}

}  // namespace hetps::worker
