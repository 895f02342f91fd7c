/// MIME types for common file name extensions (AFNetworking asks the system's UTType database;
/// Linux has no such API in the libraries Courier may use, so this is a built-in table).
public enum MIMETypes {
    /// The type for files of unknown kind (RFC 2046 §4.5.1).
    public static let fallback = "application/octet-stream"

    /// The MIME type for a file name extension (without the dot, any case), or
    /// `application/octet-stream` when it is not in the table.
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? fallback
    }

    /// The MIME type for a file name or path, from the text after its last dot. A name without
    /// an extension (or a dot file such as `.profile`) gets the fallback.
    public static func mimeType(forFileName fileName: String) -> String {
        let last = fileName.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? fileName
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return fallback }
        return mimeType(forPathExtension: String(last[last.index(after: dot)...]))
    }

    static let table: [String: String] = [
        // Text.
        "txt": "text/plain", "text": "text/plain", "log": "text/plain",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "md": "text/markdown", "markdown": "text/markdown",
        "ics": "text/calendar", "vcf": "text/vcard", "rtf": "application/rtf",
        "js": "text/javascript", "mjs": "text/javascript",
        "xml": "application/xml", "json": "application/json", "jsonld": "application/ld+json",
        "yaml": "application/yaml", "yml": "application/yaml",
        // Images.
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        // Audio and video.
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac", "opus": "audio/opus",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "avi": "video/x-msvideo", "mkv": "video/x-matroska", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "3gp": "video/3gpp",
        // Documents and archives.
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "tgz": "application/gzip", "tar": "application/x-tar", "bz2": "application/x-bzip2",
        "xz": "application/x-xz", "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "epub": "application/epub+zip", "wasm": "application/wasm",
        // Fonts.
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Binaries.
        "bin": "application/octet-stream", "exe": "application/octet-stream",
    ]
}
