/// `courier --help`: curl's options grouped as curl's `--help all` groups them, with examples.
enum CurlHelp {
    static let text = """
    Usage: courier [options...] <url>...
           courier bench [options...] <url>     (see courier bench --help)

    A curl-compatible HTTP/1.1 client on the Courier library. Flags, exit codes and -w
    variables are curl's.

    Request:
     -X, --request <method>        Method to use (GET, POST, PUT, DELETE, ...)
     -H, --header <header>         Add a header "Name: value" (repeatable; "Name:" removes one)
     -A, --user-agent <name>       User-Agent to send
     -e, --referer <url>           Referer to send
     -I, --head                    Fetch the headers only (HEAD)
     -G, --get                     Put the -d data in the URL's query, send a GET
         --url <url>               A URL to transfer (as a positional URL)
     -g, --globoff                 Take {} and [] in URLs literally (default: {a,b} and [1-9] expand)

    Body:
     -d, --data <data>             POST data (@file reads a file, CR/LF stripped); repeated -d are joined with &
         --data-raw <data>         POST data, no @file
         --data-binary <data>      POST data as is (@file reads a file unchanged)
         --data-urlencode <data>   POST data, URL-encoded (content, name=content, @file, name@file)
         --json <data>             POST JSON (sets Content-Type and Accept to application/json)
     -F, --form <name=content>     Multipart form field; name=@file;type=mime;filename=name uploads a file
     -T, --upload-file <file>      PUT a file (- for stdin)

    Output:
     -o, --output <file>           Write the body to <file> (- for stdout), one per URL; #1 is a glob's value
     -O, --remote-name             Name the output file after the URL's last path segment
         --output-dir <dir>        Directory for -o and -O files
         --create-dirs             Create the directories -o names
     -i, --include                 Include the response head in the output
     -D, --dump-header <file>      Write the response heads to <file> (- for stdout)
     -w, --write-out <format>      Print after the transfer: %{http_code}, %{time_total}, %{json}, ... (@file reads it)

    Redirects and errors:
     -L, --location                Follow redirects
         --max-redirs <num>        Follow at most <num> redirects (default 50)
     -f, --fail                    Fail with exit code 22 on HTTP errors (400 and up), no body
         --fail-with-body          Fail with exit code 22 on HTTP errors, keep the body

    Verbosity:
     -v, --verbose                 Print request and response heads (> and <) and Courier's timings (*) on stderr
     -s, --silent                  No progress, no error messages
     -S, --show-error              Print errors even with -s
     -#, --progress-bar            A progress bar (on a terminal only)

    Encoding and authentication:
         --compressed              Ask for gzip or deflate and decode the body
     -u, --user <user:password>    Server credentials (Basic); asked for without :password
         --digest                  Use Digest authentication (RFC 7616) with -u
     -b, --cookie <data|file>      Send cookies: "name=value; n2=v2" or a Netscape cookie file
     -c, --cookie-jar <file>       Write the cookies to a Netscape cookie file after the transfers

    TLS:
     -k, --insecure                Do not verify the server's certificate
         --cacert <file>           CA certificates (PEM) to verify the server with
         --capath <dir>            A directory of CA certificates (hashed names)
     -E, --cert <file[:password]>  Client certificate (PEM); a password after ":" opens an encrypted key (\\: is a colon)
         --key <file>              Client private key (PEM)
         --pass <password>         Password of an encrypted private key
         --pinnedpubkey <hashes>   sha256//<base64>[;sha256//...]: the server's public key must match one

    Proxies:
     -x, --proxy <[scheme://]host[:port]>  http://, socks5:// or socks5h:// proxy
         --noproxy <hosts>         Hosts that bypass the proxy (comma-separated, * for all)
         --unix-socket <path>      Connect through a Unix-domain socket

    Recovery and limits:
     -C, --continue-at -           Resume a transfer where the output file ends
         --retry <num>             Retry transient failures (timeouts, 408, 429, 5xx) up to <num> times
         --retry-delay <seconds>   Wait this long between retries
         --retry-max-time <secs>   Stop retrying after this long
         --retry-all-errors        Retry on every error
         --retry-connrefused       Count a refused connection as transient
         --connect-timeout <secs>  Longest time to connect
     -m, --max-time <seconds>      Longest time for the whole transfer
         --limit-rate <speed>      Bandwidth cap in bytes/s (k, m, g suffixes)
         --har <file>              Write a HAR 1.2 log of the transfers

     -K, --config <file>           Read options from a curl config file (- for stdin), where -K stands
     -h, --help                    This help
     -V, --version                 Show the version

    Examples:
      courier https://example.com/                          (curl https://example.com/)
      courier -sSfL -o page.html https://example.com/       (curl -sSfL -o page.html ...)
      courier -XPOST -H 'Content-Type: text/plain' -d @body.txt http://localhost:8080/
      courier --json '{"a":1}' http://localhost:8080/api
      courier -F 'photo=@cat.jpg;type=image/jpeg' http://localhost:8080/upload
      courier -o /dev/null -w '%{http_code} %{time_total}\\n' https://example.com/
      courier -w '%{json}' -o /dev/null https://example.com/ | jq .
      courier -b cookies.txt -c cookies.txt https://example.com/login
      courier -v --compressed https://example.com/

    """
}
