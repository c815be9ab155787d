# A stand-in for the few parts of an OpenWrt SDK's rules.mk that the wgcp feed Makefiles
# use, so that their recipes run here: `make -C openwrt/<package> TOPDIR=<this folder>`.
# The values follow the SDK's (include/package-defaults.mk, rules.mk); the toolchain is
# chosen by STUB_ARCH and STUB_CROSS, e.g. STUB_ARCH=aarch64 STUB_CROSS=aarch64-linux-gnu-
# for Debian's cross compiler. It is not an SDK: no musl, no staging of other packages.
INCLUDE_DIR:=$(TOPDIR)/include
STUB_WORK?=$(CURDIR)/.stub-sdk
TMP_DIR:=$(STUB_WORK)/tmp
BUILD_DIR:=$(STUB_WORK)/build
# The target's node headers are found at $(STAGING_DIR)/usr/include/node, as the node
# package's InstallDev puts them; here the build host's own node (same version).
STAGING_DIR?=$(STUB_WORK)/staging
STAGING_DIR_HOSTPKG?=$(STUB_WORK)/hostpkg

ARCH:=$(or $(STUB_ARCH),$(shell uname -m))
LIBC:=$(or $(STUB_LIBC),glibc)
TARGET_CROSS:=$(STUB_CROSS)
TARGET_CC:=$(TARGET_CROSS)gcc
TARGET_CXX:=$(TARGET_CROSS)g++
TARGET_CFLAGS:=-Os -pipe
TARGET_CXXFLAGS=$(TARGET_CFLAGS)
TARGET_CPPFLAGS:=
TARGET_LDFLAGS:=
FPIC:=-fPIC
TARGET_CONFIGURE_OPTS = \
	AR="$(TARGET_CROSS)gcc-ar" \
	AS="$(TARGET_CC) -c" \
	LD="$(TARGET_CROSS)ld" \
	NM="$(TARGET_CROSS)gcc-nm" \
	CC="$(TARGET_CC)" \
	GCC="$(TARGET_CC)" \
	CXX="$(TARGET_CXX)" \
	RANLIB="$(TARGET_CROSS)gcc-ranlib" \
	STRIP="$(TARGET_CROSS)strip" \
	OBJCOPY="$(TARGET_CROSS)objcopy" \
	OBJDUMP="$(TARGET_CROSS)objdump" \
	SIZE="$(TARGET_CROSS)size"

INSTALL_DIR:=install -d -m0755
INSTALL_BIN:=install -m0755
INSTALL_DATA:=install -m0644
INSTALL_CONF:=install -m0600
CP:=cp -fpR
