# `make package`: two Debian packages with CPack's DEB generator (packaging/debian/ holds their
# maintainer scripts and documents).
#   iofleet-agent  the agent, its systemd unit, privileged drop-in and config example
#   iofleet        the controller, workloads, dashboards, deploy/ examples, nightly and serve units, docs
# The dependencies on Debian's libraries come from dpkg-shlibdeps; libjs-chart.js is named: the
# controller reads it when it writes report.html.
include(GNUInstallDirs)

set(IOFLEET_PKG_DOC_AGENT ${CMAKE_INSTALL_DATAROOTDIR}/doc/iofleet-agent)
set(IOFLEET_PKG_DOC ${CMAKE_INSTALL_DATAROOTDIR}/doc/iofleet)
set(IOFLEET_PKG_SHARE ${CMAKE_INSTALL_DATAROOTDIR}/iofleet)
set(IOFLEET_SYSTEMD_DIR lib/systemd/system)
set(IOFLEET_PKG_GENERATED ${CMAKE_BINARY_DIR}/packaging)

# Debian wants a compressed changelog (changelog.Debian.gz: the version has a Debian revision) and
# the copyright file in each package's doc folder.
file(MAKE_DIRECTORY ${IOFLEET_PKG_GENERATED})
add_custom_command(OUTPUT ${IOFLEET_PKG_GENERATED}/changelog.Debian.gz
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/packaging/debian/changelog > ${IOFLEET_PKG_GENERATED}/changelog.Debian.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog)
add_custom_target(iofleet_package_docs ALL DEPENDS ${IOFLEET_PKG_GENERATED}/changelog.Debian.gz)

# iofleet-agent
install(TARGETS iofleet-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT agent)
install(FILES deploy/systemd/iofleet-agent.service DESTINATION ${IOFLEET_SYSTEMD_DIR} COMPONENT agent)
# A minimal configuration: what the unprivileged unit can do (the examples grant more).
install(FILES packaging/debian/agent.yaml DESTINATION /etc/iofleet COMPONENT agent)
install(FILES deploy/systemd/iofleet-agent-privileged.conf deploy/agent.example.yaml deploy/agent.mkfs-fsck.example.yaml
        DESTINATION ${IOFLEET_PKG_DOC_AGENT}/examples COMPONENT agent)
install(FILES packaging/debian/copyright ${IOFLEET_PKG_GENERATED}/changelog.Debian.gz DESTINATION ${IOFLEET_PKG_DOC_AGENT} COMPONENT agent)

# iofleet
install(TARGETS iofleet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT controller)
install(DIRECTORY workloads/ DESTINATION ${IOFLEET_PKG_SHARE}/workloads COMPONENT controller)
install(DIRECTORY dashboards/ DESTINATION ${IOFLEET_PKG_SHARE}/dashboards COMPONENT controller)
install(DIRECTORY deploy/prometheus deploy/kubernetes deploy/compose DESTINATION ${IOFLEET_PKG_SHARE}/deploy COMPONENT controller)
install(PROGRAMS deploy/tls/make-certs DESTINATION ${IOFLEET_PKG_SHARE}/deploy/tls COMPONENT controller)
install(FILES deploy/systemd/iofleet-nightly.service deploy/systemd/iofleet-nightly.timer deploy/systemd/iofleet-serve.service
        DESTINATION ${IOFLEET_SYSTEMD_DIR} COMPONENT controller)
# serve's config is the operator's to write (the unit checks it before it starts): an example only.
install(FILES deploy/serve.example.yaml DESTINATION ${IOFLEET_PKG_DOC}/examples COMPONENT controller)
install(FILES README.md docs/ARCHITECTURE.md docs/HISTORY.md docs/OBSERVABILITY.md docs/OPERATIONS.md docs/PERFORMANCE.md
        docs/RELIABILITY.md docs/report-schema.md docs/workloads.md
        DESTINATION ${IOFLEET_PKG_DOC} COMPONENT controller)
install(FILES packaging/debian/copyright ${IOFLEET_PKG_GENERATED}/changelog.Debian.gz DESTINATION ${IOFLEET_PKG_DOC} COMPONENT controller)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL agent controller)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "iofleet maintainers <iofleet@example.org>")
set(CPACK_PACKAGE_VENDOR "iofleet")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/iofleet/iofleet")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME iofleet-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "adduser")
set(CPACK_COMPONENT_AGENT_DESCRIPTION "storage benchmark agent for iofleet
iofleet-agent runs storage benchmark workloads (O_DIRECT or buffered I/O
through psync, libaio or io_uring, file trees, copies) for an iofleet
controller, beneath the directories it is given, and serves Prometheus
metrics. Install it on every storage client.")
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/debian/agent/conffiles
    ${PROJECT_SOURCE_DIR}/packaging/debian/agent/postinst
    ${PROJECT_SOURCE_DIR}/packaging/debian/agent/prerm
    ${PROJECT_SOURCE_DIR}/packaging/debian/agent/postrm)
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_CONTROLLER_PACKAGE_NAME iofleet)
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_DEPENDS "libjs-chart.js, adduser")
# Its postinst makes the user iofleet the nightly and serve units run as; prerm stops serve on
# removal, postrm has systemd forget the removed units.
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/debian/controller/postinst
    ${PROJECT_SOURCE_DIR}/packaging/debian/controller/prerm
    ${PROJECT_SOURCE_DIR}/packaging/debian/controller/postrm)
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_COMPONENT_CONTROLLER_DESCRIPTION "distributed storage benchmark controller
iofleet schedules storage benchmark workloads on many iofleet agents at
once, starts them at the same instant and merges their exact results into
JSON, CSV, Markdown and HTML reports and a history database with
statistical regression verdicts. Ships the reference workloads, Grafana
dashboards and deployment examples.")

include(CPack)
