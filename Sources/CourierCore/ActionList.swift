/// The actions one input of a state machine asks for, in order.
///
/// Almost every input asks for none, one or two, so those are kept inline and an array is made
/// only for a third and later one: the per-request paths of the machines that return these
/// (a session task's, the connection pool's) allocate nothing for their actions. A plain
/// `[Action]` allocates on every non-empty return.
///
/// `@inlinable` throughout: the machines live in other modules, and an unspecialised generic
/// call per action would cost more than the array it replaces.
@frozen
public struct ActionList<Action>: Sequence {
    @usableFromInline var one: Action?
    @usableFromInline var two: Action?
    /// The third and later actions.
    @usableFromInline var more: [Action] = []

    /// No action.
    @inlinable public static var none: ActionList { ActionList() }

    @inlinable public init() {}

    @inlinable public init(_ action: Action) {
        one = action
    }

    @inlinable public init(_ first: Action, _ second: Action) {
        one = first
        two = second
    }

    @inlinable public var isEmpty: Bool { one == nil }

    @inlinable public var first: Action? { one }

    @inlinable public var count: Int { one == nil ? 0 : two == nil ? 1 : 2 + more.count }

    @inlinable public mutating func append(_ action: Action) {
        if one == nil {
            one = action
        } else if two == nil {
            two = action
        } else {
            more.append(action)
        }
    }

    @inlinable public mutating func append(contentsOf other: ActionList) {
        guard let first = other.one else { return }
        append(first)
        guard let second = other.two else { return }
        append(second)
        for action in other.more { append(action) }
    }

    @inlinable public static func + (lhs: ActionList, rhs: ActionList) -> ActionList {
        var sum = lhs
        sum.append(contentsOf: rhs)
        return sum
    }

    /// Calls `body` with each action in order, slot by slot (an iterator holds a copy of the
    /// whole list).
    @inlinable public func forEach(_ body: (Action) throws -> Void) rethrows {
        guard let one else { return }
        try body(one)
        guard let two else { return }
        try body(two)
        for action in more { try body(action) }
    }

    /// Whether an action satisfies `predicate`, slot by slot (as ``forEach(_:)``).
    @inlinable public func contains(where predicate: (Action) throws -> Bool) rethrows -> Bool {
        guard let one else { return false }
        if try predicate(one) { return true }
        guard let two else { return false }
        if try predicate(two) { return true }
        return try more.contains(where: predicate)
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(actions: self) }

    @frozen
    public struct Iterator: IteratorProtocol {
        @usableFromInline let actions: ActionList
        @usableFromInline var index = 0

        @inlinable init(actions: ActionList) {
            self.actions = actions
        }

        @inlinable public mutating func next() -> Action? {
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

extension ActionList: ExpressibleByArrayLiteral {
    @inlinable public init(arrayLiteral actions: Action...) {
        for action in actions { append(action) }
    }
}

/// Two lists are equal when they hold equal actions in the same order.
extension ActionList: Equatable where Action: Equatable {
    @inlinable public static func == (lhs: ActionList, rhs: ActionList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension ActionList: Sendable where Action: Sendable {}

extension ActionList: CustomStringConvertible {
    public var description: String { "\(Array(self))" }
}
