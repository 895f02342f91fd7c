import CourierCore

/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let value: UInt64
}

/// A binary min-heap of deadlines. Cancelling removes the callback at once and leaves the
/// heap entry to be skipped when it surfaces (lazy deletion keeps cancel O(1)).
///
/// Loop-confined: only its event loop's thread touches it.
struct TimerQueue {
    private struct Entry {
        var deadline: Deadline
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var callbacks: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 0
    /// Cancelled entries still in the heap. When they outnumber the live ones the heap is
    /// rebuilt, so a connection that arms and cancels a 60 s timer per request cannot make the
    /// heap grow with the request rate.
    private var cancelledInHeap = 0
    /// The id of the heap's first entry when ``nextDeadline()`` last found it live (0: none;
    /// ids start at 1 and are never reused). The loop asks before every wait, and a first
    /// entry that has not changed and was not cancelled since needs no lookup of its callback.
    private var liveFirst: UInt64 = 0

    var isEmpty: Bool { callbacks.isEmpty }

    mutating func schedule(at deadline: Deadline, _ callback: @escaping () -> Void) -> TimerID {
        nextID &+= 1
        callbacks[nextID] = callback
        heap.append(Entry(deadline: deadline, id: nextID))
        siftUp(heap.count - 1)
        return TimerID(value: nextID)
    }

    /// Cancels the timer `id`, returning its callback (nil if it already ran or was cancelled)
    /// so that the caller releases it once its access to the queue has ended.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> (() -> Void)? {
        guard let callback = callbacks.removeValue(forKey: id.value) else { return nil }
        if id.value == liveFirst { liveFirst = 0 }
        if callbacks.isEmpty {
            heap.removeAll(keepingCapacity: true)
            cancelledInHeap = 0
            return callback
        }
        cancelledInHeap += 1
        if cancelledInHeap > 64, cancelledInHeap > heap.count / 2 { compact() }
        return callback
    }

    /// Drops cancelled entries and restores the heap order (Floyd's bottom-up build, O(n)).
    private mutating func compact() {
        heap.removeAll { callbacks[$0.id] == nil }
        cancelledInHeap = 0
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// Entries in the heap, live or cancelled (for tests).
    var storedEntryCount: Int { heap.count }

    /// The earliest live deadline.
    mutating func nextDeadline() -> Deadline? {
        while let first = heap.first {
            if first.id == liveFirst { return first.deadline }
            if callbacks[first.id] != nil {
                liveFirst = first.id
                return first.deadline
            }
            popFirst()
            cancelledInHeap -= 1
        }
        return nil
    }

    /// Removes and returns the callback of the earliest live timer due at `now`, if any.
    mutating func popFirstExpired(now: Deadline) -> (() -> Void)? {
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let callback = callbacks.removeValue(forKey: first.id) { return callback }
            cancelledInHeap -= 1
        }
        return nil
    }

    private mutating func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
