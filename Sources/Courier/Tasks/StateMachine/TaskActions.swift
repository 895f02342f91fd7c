import CourierCore

/// The ``TaskAction``s one event of the ``TaskStateMachine`` asks for, in order. Almost every
/// event asks for none, one or two (a body part: progress and the data hook), which
/// ``ActionList`` keeps inline: the per-request paths allocate nothing for their actions.
typealias TaskActions<Transport: AnyObject & Sendable, Sink: AnyObject & Sendable> = ActionList<TaskAction<Transport, Sink>>
