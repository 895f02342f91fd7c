import FoundationEssentials

extension TaskCompletion {
    /// What a successful task received, before serialization: the body in memory (data and
    /// upload tasks) or the downloaded file.
    enum Body: Sendable {
        case data(Data)
        case file(URL)
    }
}
