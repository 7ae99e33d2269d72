#include "ember/data/text_collate.h"

#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/index.h"

namespace ember::data {

CollateFn text_collate(std::shared_ptr<const BertTokenizer> tokenizer, TextCollateOptions options) {
  if (!tokenizer) raise<ValueError>("text_collate: the tokenizer is null");
  return
      [tokenizer = std::move(tokenizer), options = std::move(options)](const std::vector<Example>& examples) {
        if (examples.empty()) raise<ValueError>("text_collate: no examples");
        std::vector<std::string> texts;
        texts.reserve(examples.size());
        for (const Example& e : examples) texts.push_back(e.text);
        BatchEncoding encoded = tokenizer->batch_encode(texts, options.encode);
        Batch batch;
        batch.set_field("input_ids", encoded.input_ids);
        batch.set_field("attention_mask", encoded.attention_mask);
        batch.set_field("token_type_ids", encoded.token_type_ids);
        batch.set_field("lengths", encoded.lengths);
        if (examples[0].has_field("labels")) {
          std::vector<Tensor> labels;
          labels.reserve(examples.size());
          for (size_t i = 0; i < examples.size(); ++i) {
            if (!examples[i].has_field("labels"))
              raise<ValueError>("text_collate: example ", i, " has no field 'labels' but example 0 has");
            labels.push_back(examples[i].field("labels"));
          }
          batch.target = stack(labels);
          batch.set_field("labels", batch.target);
        }
        return options.device ? batch.to(*options.device) : batch;
      };
}

}  // namespace ember::data
