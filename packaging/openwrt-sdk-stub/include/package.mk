# A stand-in for the SDK's include/package.mk (see ../rules.mk): the flag sets a package's
# recipes use, and three goals instead of the SDK's whole build:
#   stub-compile              Build/Prepare then Build/Compile
#   stub-install DESTDIR=DIR  Package/$(PKG_NAME)/install into DIR (what the ipk's data holds)
#   stub-dump                 each package's fields as make read them
PKG_BUILD_DIR?=$(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
STUB_NODE_HEADERS?=$(abspath $(dir $(shell command -v node))../include/node)

MAKE_VARS = \
	CFLAGS="$(TARGET_CFLAGS) $(EXTRA_CFLAGS) $(TARGET_CPPFLAGS) $(EXTRA_CPPFLAGS)" \
	CXXFLAGS="$(TARGET_CXXFLAGS) $(EXTRA_CXXFLAGS) $(TARGET_CPPFLAGS) $(EXTRA_CPPFLAGS)" \
	LDFLAGS="$(TARGET_LDFLAGS) $(EXTRA_LDFLAGS)"

MAKE_FLAGS = \
	$(TARGET_CONFIGURE_OPTS) \
	CROSS="$(TARGET_CROSS)" \
	ARCH="$(ARCH)"

# Reads the package's definition as the SDK's metadata scan would, for stub-dump.
define BuildPackage
$$(eval $$(Package/$(1)))
STUB_PACKAGES+=$(1)
STUB_FIELDS_$(1):=Package: $(1)|Version: $$(or $$(VERSION),$$(PKG_VERSION)-$$(PKG_RELEASE))|Depends: $$(strip $$(DEPENDS))|Require-User: $$(USERID)|Architecture: $$(or $$(PKGARCH),target)|Title: $$(TITLE)
endef

.PHONY: stub-compile stub-install stub-staging stub-dump
stub-dump:
	@$(foreach p,$(STUB_PACKAGES),printf '%s|\n' '$(STUB_FIELDS_$(p))' | tr '|' '\n';)

stub-staging:
	mkdir -p $(TMP_DIR) $(BUILD_DIR) $(STAGING_DIR)/usr/include $(STAGING_DIR_HOSTPKG)/bin
	[ -e $(STAGING_DIR)/usr/include/node ] || ln -s $(STUB_NODE_HEADERS) $(STAGING_DIR)/usr/include/node
	for tool in node npm; do [ -e $(STAGING_DIR_HOSTPKG)/bin/$$tool ] || ln -s "$$(command -v $$tool)" $(STAGING_DIR_HOSTPKG)/bin/$$tool; done

stub-compile: stub-staging
	$(Build/Prepare)
	$(Build/Compile)

stub-install:
	$(INSTALL_DIR) $(DESTDIR)
	$(call Package/$(PKG_NAME)/install,$(DESTDIR))
