#pragma once

namespace gpubench::bench {

// A closed standard stream leaves its number free, and the next file opened (--benchmark_out)
// would take it and receive what was meant for the terminal. A closed stdout becomes /dev/full,
// so that output lost is still reported as lost; stdin and stderr become /dev/null. A write to a
// pipe nobody reads fails (EPIPE) from here on, reported as lost output, instead of SIGPIPE
// ending the process without a word (a run handles SIGPIPE itself: interrupt.hpp); so does a
// write past the file size limit (`ulimit -f`: EFBIG), instead of SIGXFSZ.
void reserve_standard_streams();

} // namespace gpubench::bench
