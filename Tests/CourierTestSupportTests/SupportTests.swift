import Testing

/// One serialized suite for the whole target: the descriptor-count test compares process-wide
/// counts, so no other test in this process may open sockets while it runs.
@Suite("CourierTestSupport", .serialized)
struct SupportTests {}
