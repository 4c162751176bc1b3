// The report's table: one row per entry, with its figures over its seeds (comparison.h). Each
// figure's cell shows it rounded and carries it exactly, for a reader or a test to take back:
//   <td data-column="final_accuracy" data-value="0.8412" data-min="0.8401" data-max="0.8423">
#pragma once

#include <string>

#include "report/comparison.h"

namespace hetps::report {

// The <table id="results-table"> and its footnotes.
std::string results_table_html(const Comparison& comparison);

}  // namespace hetps::report
