# The Debian package as a user gets it: `cpack -G DEB` from the build,
# checked for its name, dependencies and files, then unpacked into an empty
# root (dpkg-deb -x, what `apt install ./onnxc_*.deb` puts under /) and used
# by the example project with nothing of the source or build tree: onnxc,
# runtime-lite, the CMake package and the targets' files all come from the
# unpacked root.
#   -DBUILD=<onnxc build> -DWORK=<folder> -DEXAMPLE=<project> -DGENERATOR=<generator>
#   -DCONSUMER_CHECK=<check_consumer.cmake>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND cpack -G DEB --config ${BUILD}/CPackConfig.cmake -B ${WORK}/out
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
file(GLOB debs ${WORK}/out/onnxc_*_amd64.deb)
if(NOT rc EQUAL 0 OR NOT debs)
  message(FATAL_ERROR "cpack wrote no onnxc_<version>_amd64.deb:\n${out}")
endif()
list(GET debs 0 deb)
get_filename_component(name ${deb} NAME)
message(STATUS "package: ${name}")
execute_process(COMMAND dpkg-deb --field ${deb} Package Version Depends OUTPUT_VARIABLE fields)
message(STATUS "${fields}")
foreach(dep libmlir-19 libllvm19 libonnx1 libprotobuf32 g\\+\\+)
  if(NOT fields MATCHES "Depends:.*${dep}")
    message(FATAL_ERROR "the package does not depend on ${dep}")
  endif()
endforeach()
execute_process(COMMAND dpkg-deb --contents ${deb} OUTPUT_VARIABLE contents)
foreach(file ./usr/bin/onnxc ./usr/include/onnxc/onnxc_rt/base.h
             ./usr/lib/cmake/onnxc/onnxcConfig.cmake ./usr/lib/cmake/onnxc/onnxcConfigVersion.cmake
             ./usr/lib/cmake/onnxc/AddOnnxModel.cmake ./usr/share/pkgconfig/onnxc.pc
             ./usr/share/onnxc/targets/cortex-m/cortex-m0plus.cmake
             ./usr/share/onnxc/targets/cortex-m/cortex-m4.cmake
             ./usr/share/onnxc/targets/cortex-m/cortex-m55.cmake
             ./usr/share/onnxc/targets/cortex-m/startup.c
             ./usr/share/onnxc/targets/aarch64/aarch64-linux-gnu.cmake
             ./usr/share/onnxc/tools/qemu/count_instructions.c)
  string(REPLACE "+" "\\+" pattern "${file}")
  if(NOT contents MATCHES " ${pattern}\n")
    message(FATAL_ERROR "the package lacks ${file}")
  endif()
endforeach()
execute_process(COMMAND dpkg-deb -x ${deb} ${WORK}/root RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -x failed")
endif()
execute_process(COMMAND ${WORK}/root/usr/bin/onnxc --version OUTPUT_VARIABLE version)
message(STATUS "unpacked: ${version}")
# find_package(onnxc 0.1) against the unpacked package, CMake's defaults.
execute_process(COMMAND ${CMAKE_COMMAND} -DEXAMPLE=${EXAMPLE} -DWORK=${WORK}/consumer
                        -DGENERATOR=${GENERATOR} -DONNXC_DIR=${WORK}/root/usr/lib/cmake/onnxc
                        -DPROGRAM=fashion_c -DMODEL_SOURCE=fashion.cpp -DEXPECT_FLAG=-O[23]
                        -P ${CONSUMER_CHECK}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example against the unpacked package failed")
endif()
