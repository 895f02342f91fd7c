-- Printed by wrk at the end of a run: the same JSON line the Swift drivers print.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"bytes":%d,"seconds":%.6f,"errors":%d}\n',
    summary.requests, summary.bytes, summary.duration / 1e6,
    e.connect + e.read + e.write + e.status + e.timeout))
end
