#pragma once
// ember::data: datasets (MNIST, labelled texts), transforms, pad_sequence, the DataLoader and
// the BERT tokenizer.
#include "ember/data/bert_tokenizer.h"
#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/data/idx.h"
#include "ember/data/mnist.h"
#include "ember/data/pad_sequence.h"
#include "ember/data/parse.h"
#include "ember/data/sampler.h"
#include "ember/data/tensor_dataset.h"
#include "ember/data/text_collate.h"
#include "ember/data/text_dataset.h"
#include "ember/data/transforms.h"
