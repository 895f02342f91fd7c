/// The ``TaskAction``s one event of the ``TaskStateMachine`` asks for, in order. Almost every
/// event asks for none, one or two (a body part: progress and the data hook), so those are
/// kept inline and an array is made only for a third and later one (a held part delivered):
/// the per-request paths allocate nothing for their actions.
struct TaskActions<Transport: AnyObject & Sendable, Sink: AnyObject & Sendable>: Sequence {
    typealias Action = TaskAction<Transport, Sink>

    private(set) var one: Action?
    private(set) var two: Action?
    /// The third and later actions.
    private(set) var more: [Action] = []

    /// No action.
    static var none: TaskActions { TaskActions() }

    private init() {}

    init(_ action: Action) {
        one = action
    }

    init(_ first: Action, _ second: Action) {
        one = first
        two = second
    }

    var isEmpty: Bool { one == nil }

    var first: Action? { one }

    var count: Int { one == nil ? 0 : two == nil ? 1 : 2 + more.count }

    mutating func append(_ action: Action) {
        if one == nil {
            one = action
        } else if two == nil {
            two = action
        } else {
            more.append(action)
        }
    }

    mutating func append(contentsOf other: TaskActions) {
        guard let first = other.one else { return }
        append(first)
        guard let second = other.two else { return }
        append(second)
        for action in other.more { append(action) }
    }

    static func + (lhs: TaskActions, rhs: TaskActions) -> TaskActions {
        var sum = lhs
        sum.append(contentsOf: rhs)
        return sum
    }

    func makeIterator() -> Iterator { Iterator(actions: self) }

    struct Iterator: IteratorProtocol {
        fileprivate let actions: TaskActions
        private var index = 0

        fileprivate init(actions: TaskActions) {
            self.actions = actions
        }

        mutating func next() -> Action? {
            defer { index += 1 }
            switch index {
            case 0: return actions.one
            case 1: return actions.two
            default:
                let rest = index - 2
                return rest < actions.more.count ? actions.more[rest] : nil
            }
        }
    }
}
