# Turns a text file into a C string definition: cmake -DINPUT=f -DOUTPUT=o -DSYMBOL=s -P embed.cmake
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT}.tmp "/* Generated from ${INPUT}; do not edit. */\nconst char ${SYMBOL}[] = {${bytes} 0x00};\n")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
