#pragma once

namespace gpubench::bench {

// A closed standard stream leaves its number free, and the next file opened (--benchmark_out)
// would take it and receive what was meant for the terminal. A closed stdout becomes /dev/full,
// so that output lost is still reported as lost; stdin and stderr become /dev/null.
void reserve_standard_streams();

} // namespace gpubench::bench
