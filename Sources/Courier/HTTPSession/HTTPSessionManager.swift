import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials
import Synchronization

/// AFNetworking's `AFHTTPSessionManager`: requests relative to a base URL, built by a request
/// serializer, with responses validated and decoded by a response serializer — GET, HEAD, POST,
/// PUT, PATCH and DELETE with success/failure closures, a multipart POST, and `async` variants.
///
/// It runs its tasks on a ``SessionManager`` (``session``), whose hooks, events, registry and
/// invalidation apply.
public final class HTTPSessionManager: Sendable {
    /// The base URL paths are resolved against. As in AFNetworking, a base URL with a path gets a
    /// trailing slash, so `"https://api.example.com/v1"` + `"users"` is `…/v1/users`.
    public let baseURL: URL?
    /// ``baseURL`` parsed once: every path is resolved against this (RFC 3986 §5.2), with no
    /// Foundation `URL` on the way. A base URL with no ``HTTPURL`` form is kept with the reason,
    /// which every relative path then reports.
    private let base: Result<HTTPURL, HTTPURLError>?
    /// The session that runs the tasks.
    public let session: SessionManager
    private let serializers: Mutex<Serializers>

    private struct Serializers {
        var request: any HTTPRequestSerializing = HTTPRequestSerializer()
        var response: AnyResponseSerializer<any Sendable> = JSONResponseSerializer().erased
    }

    /// A manager with a session of its own (its own event loops and connection pool).
    ///
    /// - Throws: ``CourierError`` `.invalidSecurityPolicy` when `securityPolicy` pins and
    ///   `baseURL` is not `https` (AFNetworking refuses that combination too); or when the
    ///   session cannot start.
    public init(
        baseURL: URL? = nil, configuration: SessionConfiguration = .default, securityPolicy: SecurityPolicy = .default,
        completionQueue: DispatchQueue? = nil, completionGroup: DispatchGroup? = nil
    ) throws(CourierError) {
        self.baseURL = try Self.checkedBaseURL(baseURL, securityPolicy: securityPolicy)
        self.base = self.baseURL.map { RequestURL($0).parsed }
        self.session = try SessionManager(
            configuration: configuration, securityPolicy: securityPolicy, completionQueue: completionQueue,
            completionGroup: completionGroup)
        self.serializers = Mutex(Serializers())
    }

    /// A manager on an existing client (``HTTPClient/shared`` for the common case), whose event
    /// loops and connections it shares with the client's other users — see
    /// ``SessionManager/init(client:configuration:securityPolicy:completionQueue:completionGroup:)``.
    /// ``invalidate(cancelingTasks:)`` never shuts the client down.
    ///
    /// - Throws: ``CourierError`` `.invalidSecurityPolicy` when `securityPolicy` pins and
    ///   `baseURL` is not `https`.
    public init(
        baseURL: URL? = nil, client: HTTPClient, configuration: SessionConfiguration = .default,
        securityPolicy: SecurityPolicy = .default, completionQueue: DispatchQueue? = nil, completionGroup: DispatchGroup? = nil
    ) throws(CourierError) {
        self.baseURL = try Self.checkedBaseURL(baseURL, securityPolicy: securityPolicy)
        self.base = self.baseURL.map { RequestURL($0).parsed }
        self.session = SessionManager(
            client: client, configuration: configuration, securityPolicy: securityPolicy, completionQueue: completionQueue,
            completionGroup: completionGroup)
        self.serializers = Mutex(Serializers())
    }

    private static func checkedBaseURL(_ baseURL: URL?, securityPolicy: SecurityPolicy) throws(CourierError) -> URL? {
        if let scheme = baseURL?.scheme {
            try securityPolicy.validate(forScheme: scheme)
        }
        return baseURL.map(Self.withTrailingSlash)
    }

    /// Ends the manager's session (``SessionManager/invalidate(cancelingTasks:)``): new requests
    /// fail with ``CourierError/Code/sessionInvalidated``; running ones finish, or are cancelled
    /// with `cancelingTasks`. Then a client the manager created is shut down — its connections,
    /// event loops and their descriptors released — while a client it was given stays up for
    /// its other users.
    public func invalidate(cancelingTasks: Bool) {
        session.invalidate(cancelingTasks: cancelingTasks)
    }

    /// AFNetworking's rule: a base URL with a non-empty path that does not end in `/` gets one.
    /// The slash goes on the path (`URLByAppendingPathComponent:@""`), before any query or
    /// fragment: `…/v1?key=1` becomes `…/v1/?key=1`, not `…/v1?key=1/`.
    static func withTrailingSlash(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              !components.percentEncodedPath.isEmpty, !components.percentEncodedPath.hasSuffix("/") else { return url }
        components.percentEncodedPath += "/"
        return components.url ?? url
    }

    /// Builds requests: ``HTTPRequestSerializer`` (query string / form body) by default; set a
    /// ``JSONRequestSerializer`` or ``PropertyListRequestSerializer`` for other bodies.
    public var requestSerializer: any HTTPRequestSerializing {
        get { serializers.withLock { $0.request } }
        set { serializers.withLock { $0.request = newValue } }
    }

    /// Validates and decodes responses: ``JSONResponseSerializer`` by default (its value is a
    /// ``JSONValue`` or nil for an empty body). Assign any serializer's `.erased`.
    public var responseSerializer: AnyResponseSerializer<any Sendable> {
        get { serializers.withLock { $0.response } }
        set { serializers.withLock { $0.response = newValue } }
    }

    /// The absolute URL for `path` (`[NSURL URLWithString:relativeToURL:baseURL]`), as
    /// Foundation's `URL`: ``httpURL(for:)``'s result.
    public func url(for path: String) throws(CourierError) -> URL {
        RequestURL(try httpURL(for: path)).foundation
    }

    /// The absolute URL for `path`, resolved against ``baseURL`` (RFC 3986 §5.2.2, strict) and
    /// parsed once. An empty `path` is the base URL itself (an empty reference keeps the base's
    /// path and query); the fragment is dropped. Characters a URL may not hold are
    /// percent-encoded first, as Foundation's `URL(string:)` does (``URLStringEncoding``).
    ///
    /// - Throws: ``CourierError`` `.invalidURL` when `path` does not make an absolute `http` or
    ///   `https` URL (no base URL and a relative path, or a reference or base URL that
    ///   ``HTTPURL`` refuses).
    public func httpURL(for path: String) throws(CourierError) -> HTTPURL {
        let reference = URLStringEncoding.encodingInvalidCharacters(path)
        do throws(HTTPURLError) {
            switch base {
            case nil: return try HTTPURL(reference)
            case .success(let base)?: return try base.resolving(reference)
            // An absolute reference needs no base; a relative one reports why the base has none.
            case .failure(let error)?: if let absolute = try? HTTPURL(reference) { return absolute } else { throw error }
            }
        } catch {
            throw CourierError(.invalidURL, underlying: error, detail: "\"\(UserInfoRedaction.redactingText(path))\" does not make a URL against \(baseURL?.redactedForDisplay ?? "no base URL"): \(error.reason)")
        }
    }

    /// Changes one request after the serializer built it and before it runs (Alamofire's
    /// `requestModifier`): per-request settings — ``Request/timeoutInterval``,
    /// ``Request/totalTimeoutInterval``, ``Request/setBasicAuthorization(_:)``,
    /// ``Request/redirects``, ``Request/validation`` — without changing the manager. Called on
    /// the caller's thread. A thrown ``CourierError`` fails the request as it is; any other error
    /// becomes `.requestSerializationFailed` with it as the underlying error.
    public typealias RequestModifier = (inout Request) throws -> Void

    /// The request the serializer makes for `method` and `path`, with extra header fields, then
    /// passed through `requestModifier`.
    public func request(method: HTTPMethod, path: String, parameters: (any Sendable)?, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) throws(CourierError) -> Request {
        let serializer = requestSerializer
        var request = try serializer.request(method: method, url: try httpURL(for: path), parameters: parameters)
        for field in headers {
            try request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        try Self.modify(&request, with: requestModifier)
        return request
    }

    static func modify(_ request: inout Request, with modifier: RequestModifier?) throws(CourierError) {
        guard let modifier else { return }
        do { try modifier(&request) } catch let error as CourierError { throw error } catch {
            throw CourierError(.requestSerializationFailed, underlying: error, failingURL: request.url, detail: "the request modifier failed: \(error)")
        }
    }

    // MARK: Tasks with closures

    /// Runs `method` on `path` (AFNetworking's `dataTaskWithHTTPMethod:…`) with the manager's
    /// ``responseSerializer``. When the request cannot be built, `failure` is called on the
    /// completion queue with a nil task and nil is returned.
    @discardableResult
    public func dataTask(
        method: HTTPMethod, path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        var typed: (@Sendable (DataTask, any Sendable) -> Void)?
        if let success { typed = { task, value in success(task, value) } }
        return dataTask(
            method: method, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier,
            serializer: responseSerializer, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
            success: typed, failure: failure)
    }

    /// Runs `method` on `path` and hands `success` the value `serializer` makes, typed: no cast
    /// from `any Sendable` (Alamofire's `responseDecodable(of:)` shape, with AFNetworking's
    /// success and failure closures). When the request cannot be built, `failure` is called on
    /// the completion queue with a nil task and nil is returned.
    @discardableResult
    public func dataTask<Serializer: ResponseSerializer>(
        method: HTTPMethod, path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        serializer: Serializer, uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        success: (@Sendable (DataTask, Serializer.Output) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        let request: Request
        do { request = try self.request(method: method, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier) } catch {
            session.completionQueue.async(group: session.completionGroup) { failure?(nil, error) }
            return nil
        }
        let box = TaskBox<DataTask>()
        let task = session.dataTask(
            with: request, serializer: serializer, uploadProgress: uploadProgress, downloadProgress: downloadProgress
        ) { response in
            guard let task = box.task else { return }
            switch response.result {
            case .success(let value): success?(task, value)
            case .failure(let error): failure?(task, error)
            }
        }
        box.task = task
        task.resume()
        return task
    }

    /// `GET` decoding the body as `type` (RFC 8259 JSON) for a typed `success`.
    @discardableResult
    public func GET<Value: Decodable & Sendable>(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        as type: Value.Type, progress: ProgressHandler? = nil,
        success: (@Sendable (DataTask, Value) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(
            method: .GET, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier,
            serializer: DecodableResponseSerializer<Value>(), downloadProgress: progress, success: success, failure: failure)
    }

    /// `GET:parameters:headers:progress:success:failure:` — parameters go in the query string.
    @discardableResult
    public func GET(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil, progress: ProgressHandler? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .GET, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, downloadProgress: progress, success: success, failure: failure)
    }

    /// `HEAD:parameters:headers:success:failure:` — success gets the task only (no body).
    @discardableResult
    public func HEAD(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        success: (@Sendable (DataTask) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .HEAD, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, success: { task, _ in success?(task) }, failure: failure)
    }

    /// `POST:parameters:headers:progress:success:failure:` — parameters go in the body.
    @discardableResult
    public func POST(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil, progress: ProgressHandler? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .POST, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, uploadProgress: progress, success: success, failure: failure)
    }

    /// `PUT:parameters:headers:success:failure:`.
    @discardableResult
    public func PUT(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .PUT, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, success: success, failure: failure)
    }

    /// `PATCH:parameters:headers:success:failure:`.
    @discardableResult
    public func PATCH(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .PATCH, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, success: success, failure: failure)
    }

    /// `DELETE:parameters:headers:success:failure:` — parameters go in the query string.
    @discardableResult
    public func DELETE(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        success: (@Sendable (DataTask, (any Sendable)?) -> Void)?, failure: (@Sendable (DataTask?, CourierError) -> Void)?
    ) -> DataTask? {
        dataTask(method: .DELETE, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, success: success, failure: failure)
    }

    /// `POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:` — a
    /// multipart/form-data upload: `parameters` become form fields first (AFNetworking's order),
    /// then `constructingBody` appends parts. The body streams from disk with an exact length.
    @discardableResult
    public func POST(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        constructingBodyWith constructingBody: (MultipartFormData) throws -> Void, progress: ProgressHandler? = nil,
        success: (@Sendable (UploadTask, (any Sendable)?) -> Void)?, failure: (@Sendable (UploadTask?, CourierError) -> Void)?
    ) -> UploadTask? {
        let request: Request
        do {
            request = try multipartRequest(path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, constructingBody: constructingBody)
        } catch {
            session.completionQueue.async(group: session.completionGroup) { failure?(nil, error) }
            return nil
        }
        let box = TaskBox<UploadTask>()
        let task = session.uploadTask(withStreamedRequest: request, serializer: responseSerializer, progress: progress) { response in
            guard let task = box.task else { return }
            switch response.result {
            case .success(let value): success?(task, value)
            case .failure(let error): failure?(task, error)
            }
        }
        box.task = task
        task.resume()
        return task
    }

    /// AFNetworking's `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:`.
    public func multipartRequest(
        method: HTTPMethod = .POST, path: String, parameters: (any Sendable)?, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        constructingBody: (MultipartFormData) throws -> Void
    ) throws(CourierError) -> Request {
        var request = try self.request(method: method, path: path, parameters: nil, headers: headers)
        let form = MultipartFormData()
        if let parameters {
            // AFNetworking sends a `Data` value as it is; everything else as its query-string text.
            let fields: [(name: String?, value: any Sendable)] =
                (parameters as? [String: any Sendable]).map { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
                ?? [(nil, parameters)]
            for field in fields {
                if let name = field.name, let data = field.value as? Data {
                    try form.appendPart(data: data, name: name)
                    continue
                }
                let subset: any Sendable = field.name.map { [$0: field.value] as [String: any Sendable] } ?? parameters
                for pair in try QueryString.pairs(subset) {
                    try form.appendPart(data: Data((pair.value ?? "").utf8), name: pair.field)
                }
            }
        }
        do { try constructingBody(form) } catch let error as CourierError { throw error } catch {
            throw CourierError(.requestSerializationFailed, underlying: error, detail: "the multipart body could not be built: \(error)")
        }
        request.body = form.makeBody()
        try request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        try Self.modify(&request, with: requestModifier)
        return request
    }
}

/// Hands a task to its own completion closure (created before the task exists). Written once,
/// before `resume()`, then only read; the lock makes that ordering explicit.
///
/// The reference is weak: the task keeps its completion closure, which keeps this box, so a
/// strong reference would be a cycle that never frees the task — nor, through it, the session
/// and its event loops. While the completion runs, the session's delivery holds the task.
final class TaskBox<Wrapped: SessionTask>: Sendable {
    private struct Reference {
        weak var task: Wrapped?
    }

    private let storage = Mutex(Reference())

    var task: Wrapped? {
        get { storage.withLock { $0.task } }
        set { storage.withLock { $0.task = newValue } }
    }
}
