/*
 * The ceiling for W5 of the loopback comparison (Client/run.py): zlib's own inflate speed on the
 * same .gz file, in memory, no network. Reads the file once, then inflates it `repeat` times
 * (gzip wrapper, windowBits 15+16) into one reused output buffer, the way a client hands each
 * decoded block on, and prints one JSON line:
 *
 *   {"bytes":B,"seconds":S,"repeat":R,"buffer":K}     (B = decoded bytes over all repeats)
 *
 *   ZlibInflateBench FILE.gz [repeat=3] [buffer=131072]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ZlibInflateBench FILE.gz [repeat=3] [buffer=131072]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 3;
    size_t bufferSize = argc > 3 ? (size_t)atol(argv[3]) : 131072;
    if (repeat < 1 || bufferSize < 1024) {
        fprintf(stderr, "ZlibInflateBench: repeat must be >= 1 and buffer >= 1024\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *input = malloc((size_t)size);
    unsigned char *output = malloc(bufferSize);
    if (!input || !output || fread(input, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "ZlibInflateBench: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(file);

    unsigned long long total = 0;
    volatile unsigned char sink = 0;
    double start = now();
    for (int r = 0; r < repeat; r++) {
        z_stream stream = {0};
        if (inflateInit2(&stream, 15 + 16) != Z_OK) { fprintf(stderr, "inflateInit2 failed\n"); return 1; }
        stream.next_in = input;
        stream.avail_in = (uInt)size;
        int status;
        do {
            stream.next_out = output;
            stream.avail_out = (uInt)bufferSize;
            status = inflate(&stream, Z_NO_FLUSH);
            if (status != Z_OK && status != Z_STREAM_END) {
                fprintf(stderr, "inflate failed: %d %s\n", status, stream.msg ? stream.msg : "");
                return 1;
            }
            total += bufferSize - stream.avail_out;
            sink ^= output[0];
        } while (status != Z_STREAM_END);
        inflateEnd(&stream);
    }
    double seconds = now() - start;
    (void)sink;
    printf("{\"bytes\":%llu,\"seconds\":%.6f,\"repeat\":%d,\"buffer\":%zu}\n", total, seconds, repeat, bufferSize);
    return 0;
}
