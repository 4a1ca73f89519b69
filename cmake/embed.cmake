# cmake -DINPUT=file -DOUTPUT=file.inc -DNAME=symbol [-DNUL=ON] -P embed.cmake
# Writes INPUT as an 8-byte aligned C++ byte array (cuModuleLoadData wants an aligned image);
# NUL=ON appends a terminating zero, as the driver requires for PTX text.
file(READ "${INPUT}" hex HEX)
if(NUL)
  string(APPEND hex "00")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by cmake/embed.cmake.\n"
  "alignas(8) const unsigned char ${NAME}[] = {\n${bytes}\n};\n")
