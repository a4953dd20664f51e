#!/bin/sh
# make install PREFIX=DIR (Makefile): the public headers, libkohaku.a,
# libkohaku.so, kohaku.pc for pkg-config and the kohaku command line.
set -e
prefix=$1 build=$2 soname=$3
[ -n "$prefix" ] && [ -n "$build" ] && [ -n "$soname" ] || { echo "usage: install.sh PREFIX BUILD SONAME" >&2; exit 2; }
mkdir -p "$prefix/include/kohaku/gen" "$prefix/lib/pkgconfig" "$prefix/bin"
cp include/kohaku/*.h include/kohaku/*.def "$prefix/include/kohaku/"
cp "$build"/gen/kohaku/gen/*.h "$prefix/include/kohaku/gen/"
cp "$build/libkohaku.a" "$build/$soname" "$prefix/lib/"
ln -sf "$soname" "$prefix/lib/libkohaku.so"
cp "$build/kohaku" "$prefix/bin/"
version=$(sed -n 's/^#define KH_API_MAJOR \([0-9]*\).*/\1/p' include/kohaku/api.h).$(sed -n 's/^#define KH_API_MINOR \([0-9]*\).*/\1/p' include/kohaku/api.h)
cat > "$prefix/lib/pkgconfig/kohaku.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: kohaku
Description: simulator of the KohakuAccel platform and KohakuTPU (libkohaku, include/kohaku/api.h)
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lkohaku
Libs.private: -lm
PC
echo "installed kohaku $version into $prefix"
