// What an --emit arduino sketch uses of Arduino's core, on the host
// (ecosystem.test): Serial to stdout, micros(), and delay() ending the
// program after the first loop().
#ifndef ARDUINO_MOCK_H
#define ARDUINO_MOCK_H
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

struct MockSerial {
  void begin(unsigned long) {}
  void print(const char *s) { std::fputs(s, stdout); }
  void print(int v) { std::printf("%d", v); }
  void print(unsigned long v) { std::printf("%lu", v); }
  void print(double v) { std::printf("%.2f", v); }
  void println() { std::puts(""); }
};
inline MockSerial Serial;
inline unsigned long micros() {
  return (unsigned long)std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void delay(unsigned long) { std::exit(0); }
void setup();
void loop();
#endif
