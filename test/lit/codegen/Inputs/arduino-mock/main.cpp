// Arduino's main, on the host: setup(), then loop() (the mock delay() ends it).
#include "Arduino.h"

int main() {
  setup();
  for (;;)
    loop();
}
