#pragma once

namespace gpubench::bench {

class Registry;

// launch/host_func/roundtrip: a host function enqueued on a stream, until it has run and
// signalled back.
void register_host_func(Registry& registry);

} // namespace gpubench::bench
