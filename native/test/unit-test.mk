# Shared by the native unit-test Makefiles (scheduler, normalize, classification, fast_infer, grpc).
# Each sets STEM (the binary's name) and SRCS (paths relative to its own folder), then includes this
# file; a suite may add further objects to link as prerequisites of $(OUT)/$(NAME). `make run` builds and runs the
# plain build; `make run SAN=address,undefined` or `SAN=thread` a sanitized one.
#
# Every source compiles to its own object under $(OUT)/obj/<build>/, named by its path, so the suites
# share objects they have in common (tensor.cc, the harness), `make -j` compiles in parallel, and
# -MMD keeps header dependencies exact without hand-written lists.
#
# Sanitized builds compile at -O0: in these runs compiling takes far longer than the tests
# (2.6 times longer at -O1, measured on the engine's kernels), and the sanitizers check every
# access at any optimisation level. Plain builds stay at -O1, as the scheduler's full stress test
# wants code close to what ships.
# Absolute, so the dependency files -MMD writes mean the same from every suite's folder.
ROOT := $(abspath ../../..)
OUT ?= $(ROOT)/build/native-tests
SAN ?=
CXX ?= g++
comma := ,
BUILD := $(if $(SAN),$(subst $(comma),_,$(SAN)),plain)
NAME := $(STEM)$(if $(SAN),_$(BUILD))
CXXFLAGS := -std=c++17 $(if $(SAN),-O0,-O1) -fwrapv -g -pthread -Wall -Wextra -Wno-unused-parameter \
            -I$(ROOT)/native/src -I$(ROOT)/native/test/scheduler -I$(ROOT)/node_modules/@nozbe/simdjson/src
ifneq ($(SAN),)
CXXFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

OBJDIR := $(OUT)/obj/$(BUILD)
# An object is named by its source's path in the repository: native/src/engine/tensor.cc -> native_src_engine_tensor.o.
object_of = $(OBJDIR)/$(subst /,_,$(basename $(patsubst $(ROOT)/%,%,$(abspath $(1))))).o
OBJS := $(foreach src,$(SRCS),$(call object_of,$(src)))

define compile_rule
$(call object_of,$(1)): $(abspath $(1))
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CXXFLAGS) -MMD -MP -c -o $$@ $$<
endef
$(foreach src,$(SRCS),$(eval $(call compile_rule,$(src))))
-include $(OBJS:.o=.d)

$(OUT)/$(NAME): $(OBJS)
	$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: run
run: $(OUT)/$(NAME)
	$(OUT)/$(NAME)
